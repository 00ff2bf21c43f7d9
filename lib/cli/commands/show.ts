import { basename } from 'node:path';
import type { Command } from 'commander';
import { readJobOrThrow } from '../../queue/index.js';
import type { QueueStore, JobRecord } from '../../store/index.js';
import { action } from '../action.js';
import { describeFastPath, describeFlaky, describeGate, describeLedger, describeLogTail, describeTrusted } from '../describeJob.js';
import { JOB_ARG_HELP, jobIdOf } from '../jobArg.js';
import { showName } from '../output.js';
import { printable } from '../../text/safeText.js';

/** The log a running job's gate is writing now (its train's log), else null. */
function runningLog(store: QueueStore, job: JobRecord): string | null {
  return job.state === 'in_progress' && job.batch?.train ? store.logPath(job.batch.train) : null;
}

/**
 * The job's gate log as this clone names it: the record holds the drainer's path (on a team, a CI
 * runner's); a log published through the remote has a copy here, which every line names instead.
 */
export function logPathsHere(store: QueueStore, job: JobRecord): (text: string) => string {
  const drainers = job.gateLog;
  const train = drainers ? basename(drainers, '.log') : null;
  if (!drainers || !train || !store.hasLog(train) || store.logPath(train) === drainers) return (text) => text;
  const here = store.logPath(train);
  return (text) => text.replaceAll(drainers, here);
}

function lines(job: JobRecord, logNow: string | null, here: (text: string) => string): string[] {
  const out: string[] = [];
  const add = (key: string, value: unknown) => {
    if (value === null || value === undefined || value === '') return;
    // One line per key whatever the value holds: a title's newline or escape sequence is shown escaped.
    out.push(`${key.padEnd(14)} ${printable(here(typeof value === 'string' ? value : JSON.stringify(value)))}`);
  };
  add('id', job.id);
  add('target', job.target);
  add('branch', showName(job.branch));
  add('tip', job.tip);
  add('title', job.title);
  add('submitter', job.submitter);
  if (job.follows) add('follows', `${job.follows}: the branch's failed job before this tip (land why ${job.follows})`);
  add('priority', job.priority);
  add('state', job.state);
  add('reason', job.reason);
  if (job.state === 'uncertain')
    add('decide', `git and the record disagree (see error); decide with land reconcile --resolve ${job.id} landed|queued|failed|canceled`);
  if (job.error) add('error', `${job.error.code}: ${job.error.message}`);
  if (job.batch) add('batch', `${job.batch.id} round ${job.batch.attempt}, member ${job.batch.index + 1} of ${job.batch.members.length}`);
  if (job.stopRequest) add('stop request', `${job.stopRequest.kind} by ${job.stopRequest.by}${job.stopRequest.forJob ? ` for ${job.stopRequest.forJob}` : ''}`);
  if (job.conflictPreview) {
    add('conflicts', `with the ${job.conflictPreview.against} at ${job.conflictPreview.base.slice(0, 12)}: ${job.conflictPreview.paths.join(', ')}`);
  }
  add('verdict', job.verdict);
  add('base', job.base);
  add('tree', job.tree);
  add('train', job.train);
  add('landed via', job.landedVia);
  add('log (running)', logNow);
  add('gate log', job.gateLog);
  add('fast path', describeFastPath(job.fastPath));
  add('trusted', describeTrusted(job));
  add('flaky', describeFlaky(job.flaky));
  for (const line of describeGate(job.gate)) add('gate', line);
  for (const line of describeLedger(job.ledger)) add('ledger', line);
  for (const [key, value] of Object.entries(job.timestamps)) add(key, value);
  if (Object.keys(job.requeues).length) add('requeues', job.requeues);
  if (job.state === 'failed') out.push(...describeLogTail(job.gateLogTail).map((line) => printable(line)));
  return out;
}

export function registerShow(program: Command): void {
  program
    .command('show')
    .argument('[job]', JOB_ARG_HELP)
    .description('one job record, everything it holds')
    .option('--json', 'print the record as JSON')
    .action(
      action<{ json?: boolean }>(async (ctx, _opts, args) => {
        const store = await ctx.store();
        const job = readJobOrThrow(store, await jobIdOf(ctx, args[0]));
        const logNow = runningLog(store, job);
        // Under --json the record as it is, plus `runningLog` while the job rides a train.
        if (ctx.out.json) ctx.out.emit(logNow ? { ...job, runningLog: logNow } : job);
        else ctx.out.say(lines(job, logNow, logPathsHere(store, job)).join('\n'));
      }),
    );
}
