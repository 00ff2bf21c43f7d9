// `land gc`: which finished jobs and which trains to prune (docs/team.md, "Pruning finished
// jobs"). Pure: the caller reads the records and the metrics rows, and gives "now".
import { LandError } from '../errors.js';
import { TERMINAL_STATES, type JobRecord } from '../store/index.js';

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `--older-than <span>`: a whole number and a unit, `90m`, `24h`, `30d`, `2w`; in milliseconds. */
export function parseSpan(text: string): number {
  const match = /^([0-9]{1,6})([mhdw])$/.exec(text.trim());
  if (!match) throw new LandError('usage', `--older-than: expected a span such as 30d, 2w, 24h or 90m, got ${JSON.stringify(text)}`);
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number);
}

/** When a finished job finished (its latest landed, failed or canceled time); null when it is not finished or says no time. */
export function finishedAt(job: Pick<JobRecord, 'state' | 'timestamps'>): number | null {
  if (!TERMINAL_STATES.includes(job.state)) return null;
  const times = [job.timestamps.landed, job.timestamps.failed, job.timestamps.canceled].flatMap((at) => {
    const time = at === undefined ? Number.NaN : Date.parse(at);
    return Number.isNaN(time) ? [] : [time];
  });
  return times.length ? Math.max(...times) : null;
}

export interface PrunePlan {
  /** Finished jobs that finished before the cutoff. */
  jobs: string[];
  /** Trains whose every member is pruned now or was before (no record left): their logs and train refs go. */
  trains: string[];
  /** Each train's members, as its rows name them: the store re-plans the trains under its lock. */
  members: Record<string, string[]>;
}

/** What decides an orphan train (planPrune): whether something of it is left, and the ids whose record exists but cannot be read. */
export interface OrphanFacts {
  holds: (train: string) => boolean;
  /** Records that exist but failed the check (corrupt, forged, a newer land's): their trains are kept. */
  unreadable: ReadonlySet<string>;
}

/**
 * The finished jobs older than `cutoff` (ms since the epoch) and the trains only they rode. A
 * queued or running job is never pruned, nor a train one of them rode (its story is still told).
 * A train none of whose members has a record any more (another clone's `land gc` pruned them:
 * a developer's gc prunes jobs, not the drainer's trains) goes too, once it ran before the cutoff
 * and while `holds(train)` says something of it is left, so its log and refs are not kept for ever.
 */
export function planPrune(
  jobs: readonly Pick<JobRecord, 'id' | 'state' | 'timestamps'>[],
  rows: readonly { train: string; members: readonly string[]; at?: string }[],
  cutoff: number,
  orphans: OrphanFacts = { holds: () => false, unreadable: new Set() },
): PrunePlan {
  const pruned = new Set<string>();
  const kept = new Set<string>();
  for (const job of jobs) {
    const at = finishedAt(job);
    if (at !== null && at < cutoff) pruned.add(job.id);
    else kept.add(job.id);
  }
  const members: Record<string, string[]> = {};
  const known = (id: string) => pruned.has(id) || kept.has(id) || orphans.unreadable.has(id);
  const before = (at: string | undefined) => at !== undefined && Date.parse(at) < cutoff;
  const orphan = (row: (typeof rows)[number]) => !row.members.some(known) && before(row.at) && orphans.holds(row.train);
  for (const row of rows) {
    if (!row.members.length || row.members.some((id) => kept.has(id) || orphans.unreadable.has(id))) continue;
    if (!row.members.some((id) => pruned.has(id)) && !orphan(row)) continue;
    members[row.train] = [...new Set([...(members[row.train] ?? []), ...row.members])];
  }
  return { jobs: [...pruned].sort(), trains: Object.keys(members).sort(), members };
}
