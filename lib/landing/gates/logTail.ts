// The excerpt of a failed judgement's gate log, kept on the failed jobs' records (`gateLogTail`:
// the lines that carry the failure and the last lines, excerpt.ts), so `land why` and `land show` can say why from a clone that does not hold the
// log (a queue kept in a remote: gate logs stay on the drainer). Read from the stored log, which is
// already redacted and capped (logSink.ts): the output of the gate that decided the verdict (its
// last section in the log, land's own header and end lines excluded; lib/landing/gates/gateLog.ts), else
// the log's own last lines when no gate section is in it (a worktree that could not be made).
import type { QueueStore } from '../../store/index.js';
import { decidingSection, GateLogReader, readGateLog } from './gateLog.js';

/** At most this many lines are kept (gap lines included)... */
export const LOG_TAIL_LINES = 20;
/** ...each of at most this many characters (a longer line keeps its start and ends with "…"). */
export const LOG_TAIL_WIDTH = 300;

/** One line as the record keeps it: a CRLF's carriage return dropped, at most `width` characters. */
export function cutLine(line: string, width = LOG_TAIL_WIDTH): string {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line;
  if (text.length <= width) return text;
  // By code points, so a character outside the BMP is never split in half.
  const chars = Array.from(text);
  return chars.length <= width ? text : `${chars.slice(0, width - 1).join('')}…`;
}

/** The excerpt of a read log, each line cut: the deciding gate's section's, else the whole log's. */
function tailOf(parsed: ReturnType<GateLogReader['result']>, gate: string | null, max: number): string[] {
  const section = decidingSection(parsed.sections, gate);
  return (section ? section.excerpt : parsed.excerpt).slice(-max).map((line) => cutLine(line));
}

/** The excerpt of a log's text (pure; what gateLogTail reads from the file). */
export function logTextTail(text: string, gate: string | null, max = LOG_TAIL_LINES): string[] {
  return tailOf(readGateLog(text, max), gate, max);
}

/**
 * The excerpt of train `logId`'s stored log for the gate named `gate` (null: the last failed
 * section); null when this machine has no such log. One pass over the file, memory bounded.
 */
export function gateLogTail(store: QueueStore, logId: string, gate: string | null, max = LOG_TAIL_LINES): string[] | null {
  const reader = new GateLogReader(max);
  let found: boolean;
  try {
    found = store.scanLog(logId, (line) => reader.push(line));
  } catch {
    return null; // an id that names no log (or a log that cannot be read): nothing to keep
  }
  return found ? tailOf(reader.result(), gate, max) : null;
}
