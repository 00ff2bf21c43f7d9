// Whether a job's tip is something a train can merge, as pure functions: git's answer about the
// object (lib/git/objectTypes.ts) in, a verdict out; then the record changes and events that fail
// the jobs whose tip is not (reason `bad_tip`). A tip that is a tree or a blob (a hostile record),
// that this repository does not have (a deleted branch pruned by git gc, a tip never pushed to a
// remote queue) or that git cannot read fails its own job; the drain goes on with the others.
import type { ObjectAnswer } from '../../git/index.js';
import { badTipChanges } from '../../queue/index.js';
import type { JobRecord } from '../../store/index.js';
import type { DrainEvent } from '../events.js';
import type { Steps } from './trainSteps.js';

export type TipVerdict =
  | { kind: 'ok' }
  | { kind: 'missing'; message: string }
  | { kind: 'not_commit'; type: string; message: string }
  | { kind: 'unreadable'; reason: string; message: string };

export type BadTip = Exclude<TipVerdict, { kind: 'ok' }>;

/** What git's answer about `tip` means for the job. No answer at all is a tip git did not find. */
export function classifyTip(tip: string, answer: ObjectAnswer | undefined): TipVerdict {
  const name = `tip ${tip.slice(0, 12)}`;
  switch (answer?.kind) {
    case undefined:
    case 'missing':
      return { kind: 'missing', message: `${name} is not in this repository (a deleted branch pruned by git gc, or a tip never pushed?)` };
    case 'unreadable':
      return { kind: 'unreadable', reason: answer.reason, message: `${name} cannot be read: ${answer.reason}` };
    case 'found':
      return answer.type === 'commit' ? { kind: 'ok' } : { kind: 'not_commit', type: answer.type, message: `${name} is a ${answer.type}, not a commit` };
    default: {
      const never: never = answer;
      throw new Error(`unknown object answer ${JSON.stringify(never)}`);
    }
  }
}

/** What the journal keeps of a bad tip: the object's type, `missing` or `unreadable`. */
export function foundOf(bad: BadTip): string {
  return bad.kind === 'not_commit' ? bad.type : bad.kind;
}

/** The jobs whose tip is bad, failed (reason `bad_tip`, the message naming the tip and what it is), and the events that say so. */
export function badTipSteps(bad: readonly { job: JobRecord; verdict: BadTip }[]): Steps {
  return {
    changes: badTipChanges(bad.map(({ job, verdict }) => ({ job, found: foundOf(verdict), message: verdict.message }))),
    events: bad.map(({ job, verdict }): DrainEvent => ({ type: 'failed', job: job.id, reason: 'bad_tip', message: verdict.message })),
  };
}
