// The job a command's argument names (lib/queue/lookup.ts): a job id, a branch (its latest job) or
// nothing (the checked-out branch's latest job). Each of why, show, log, repro, cancel and retry
// calls this first; when a branch was looked up, stderr names the job it found.
import { findJob } from '../queue/lookup.js';
import type { CommandContext } from './context.js';
import { showName } from './output.js';

/** The argument's help text, the same for every command that takes one. */
export const JOB_ARG_HELP = 'job id or branch name (its latest job); none: the checked-out branch (see land status --all)';

export async function jobIdOf(ctx: CommandContext, arg: string | undefined): Promise<string> {
  const found = await findJob(await ctx.store(), ctx.cwd, arg);
  if (found.how !== 'id' && found.branch !== null) {
    const which = found.how === 'current' ? `the checked-out branch ${showName(found.branch)}` : showName(found.branch);
    ctx.out.note(`land: ${found.id} is the latest job of ${which}`);
  }
  return found.id;
}
