// What the drainer reports as it works: one event per step, printed as a JSON line under --json
// and as a sentence otherwise. Events are reports; the journal and the records are the state.

export type DrainEvent =
  | { type: 'drain_started'; pid: number; target: string }
  | { type: 'recovered'; job: string; to: 'landed' | 'queued'; train: string | null }
  | { type: 'corrupt_record'; file: string; problem: string }
  | { type: 'waiting_for_company'; job: string; seconds: number }
  | { type: 'fast_path'; job: string; source: string; tree: string }
  | { type: 'train_built'; train: string; attempt: number; kind: string; base: string; commit: string; tree: string; members: string[] }
  | { type: 'member_skipped'; train: string; job: string; against: 'target' | 'train'; paths: string[] }
  | { type: 'gate_started'; train: string; gate: string; log: string }
  | { type: 'gate_finished'; train: string; gate: string; status: string; seconds: number }
  | { type: 'verdict'; train: string; verdict: string; cached: boolean; reason: string | null; seconds: number; log: string | null }
  | { type: 'landed'; train: string; commit: string; via: string; members: string[] }
  | { type: 'bisected'; train: string; attempt: number; first: string[]; second: string[] }
  | { type: 'requeued'; train: string | null; jobs: string[]; reason: string }
  | { type: 'failed'; job: string; reason: string; message: string }
  | { type: 'canceled'; job: string }
  | { type: 'window'; before: number; after: number; event: 'PASS' | 'FAIL' }
  | { type: 'published'; remote: string; commit: string }
  | { type: 'publish_rejected'; remote: string; message: string }
  | { type: 'stopping'; why: string }
  | { type: 'idle'; target: string; idleExitSeconds: number | null; polling: boolean }
  | { type: 'resumed'; jobs: number; idleSeconds: number }
  | { type: 'watch_ended'; why: 'idle_exit' | 'signal'; idleSeconds: number }
  | { type: 'warning'; message: string };

export type Emit = (event: DrainEvent) => void;

const short = (sha: string) => sha.slice(0, 12);

/** One human sentence per event. */
export function describeEvent(event: DrainEvent): string {
  switch (event.type) {
    case 'drain_started': return `draining the queue onto ${event.target} (pid ${event.pid})`;
    case 'recovered': return `recovered ${event.job} from a stopped drainer: ${event.to}`;
    case 'corrupt_record': return `skipped corrupt job record ${event.file}: ${event.problem}`;
    case 'waiting_for_company': return `${event.job} waits up to ${event.seconds}s for company`;
    case 'fast_path': return `${event.job} is already proven (${event.source}); it lands alone without a gate`;
    case 'train_built': return `train ${event.train} attempt ${event.attempt}: ${event.members.length} member(s) [${event.members.join(' ')}] ${event.kind} on ${short(event.base)}`;
    case 'member_skipped': return `  ${event.job} conflicts with the ${event.against} (${event.paths.join(', ')})`;
    case 'gate_started': return `  gate ${event.gate} ...`;
    case 'gate_finished': return `  gate ${event.gate}: ${event.status} (${event.seconds}s)`;
    case 'verdict': return `  verdict ${event.verdict}${event.cached ? ' (cached)' : ''}${event.reason ? ` (${event.reason})` : ''}${event.log ? `  log ${event.log}` : ''}`;
    case 'landed': return `  landed ${event.members.join(' ')} as ${short(event.commit)} (${event.via})`;
    case 'bisected': return `  bisecting: [${event.first.join(' ')}] next, [${event.second.join(' ')}] back to the head of the queue`;
    case 'requeued': return `  requeued ${event.jobs.join(' ')} (${event.reason})`;
    case 'failed': return `  failed ${event.job}: ${event.reason}: ${event.message}`;
    case 'canceled': return `  canceled ${event.job}`;
    case 'window': return `  window ${event.before} -> ${event.after}`;
    case 'published': return `  pushed ${short(event.commit)} to ${event.remote}`;
    case 'publish_rejected': return `  push to ${event.remote} rejected: ${event.message} (retried after the next landing)`;
    case 'stopping': return `stopping: ${event.why}`;
    case 'warning': return `warning: ${event.message}`;
    case 'idle': return `queue empty; waiting for submissions (${event.idleExitSeconds === null ? 'until stopped' : `idle-exit in ${event.idleExitSeconds}s`}${event.polling ? '; polling' : ''})`;
    case 'resumed': return `resuming after ${event.idleSeconds}s idle: ${event.jobs} runnable job(s)`;
    case 'watch_ended': return event.why === 'idle_exit' ? `queue empty for ${event.idleSeconds}s; exiting (--idle-exit)` : `stopped while idle (no train was running)`;
    default: {
      const never: never = event;
      return JSON.stringify(never);
    }
  }
}
