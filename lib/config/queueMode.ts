// Where the queue lives (docs/remote.md): the clone's own .git/land/ (default), or a git remote
// named by `--queue-remote`, else by `queue.remote` in the policy. The policy is read at the clone's
// target branch, else (a clone that has no such local branch) at origin's remote-tracking ref.
import { z } from 'zod';
import { PARSED_ONCE } from './parseOnce.js';
import { LandError } from '../errors.js';
import { branchRef, configGet, readCommitFile, type CommitFile } from '../git/index.js';
import { POLICY_FILE, queueSchema } from './schema.js';

export interface QueueMode {
  remote: string;
  target: string;
  leaseSeconds: number;
  pollSeconds: number;
}

/** The queue's mode, and the read of the target branch's tip it was decided from (its policy, for the command). */
export interface QueueModeRead {
  /** Null: the clone's own queue. */
  mode: QueueMode | null;
  /** The tip of the local target branch, its tree and policy file (null: no such branch). */
  branchRead: CommitFile | null;
}

/** What this module reads of a raw policy: its `queue` section, whatever else it holds. */
const withQueue = z.looseObject({ queue: z.unknown().optional() });

type QueueSection = { remote?: string; leaseSeconds: number; pollSeconds: number };

/** The `queue` section of a policy read at `ref`, validated alone (the rest is the command's business); null when none is readable. */
function queueSection(ref: string, read: CommitFile | null): QueueSection | null {
  const text = read?.file?.text;
  if (!text) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null; // an unreadable policy is reported by the command that loads it
  }
  const section = withQueue.safeParse(raw, PARSED_ONCE);
  const parsed = queueSchema.safeParse((section.success ? section.data.queue : undefined) ?? {}, PARSED_ONCE);
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new LandError('config', `${POLICY_FILE} at ${ref}: queue.${problem?.path.join('.') ?? ''}: ${problem?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

async function sectionAt(cwd: string, ref: string): Promise<{ read: CommitFile | null; section: QueueSection | null }> {
  const read = await readCommitFile(cwd, ref, POLICY_FILE);
  return { read, section: queueSection(ref, read) };
}

export async function resolveQueueMode(cwd: string, target: string, explicitRemote?: string): Promise<QueueModeRead> {
  const branch = await sectionAt(cwd, branchRef(target));
  const section = branch.section ?? (await sectionAt(cwd, `refs/remotes/${explicitRemote ?? 'origin'}/${target}`)).section;
  const remote = explicitRemote ?? section?.remote;
  if (!remote) return { mode: null, branchRead: branch.read };
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(remote) || (await configGet(cwd, `remote.${remote}.url`)) === null) {
    throw new LandError('config', `the queue's remote ${JSON.stringify(remote)} is not a remote of this clone`, {
      hint: `add it with \`git remote add ${remote} <url>\`, or name another with --queue-remote`,
    });
  }
  return { mode: { remote, target, leaseSeconds: section?.leaseSeconds ?? 60, pollSeconds: section?.pollSeconds ?? 5 }, branchRead: branch.read };
}
