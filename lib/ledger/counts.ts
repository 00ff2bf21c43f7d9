// The counts a batch reports in its own log lines, summed over the run. Each form is matched
// anywhere in a line, so a prefix such as "[gen 3] " does not hide it:
//   timing: <name> <seconds>s       seconds summed per name (and in total)
//   <A>/<B> candidate(s) compiled   A compiled of B candidates ("candidate", "candidates" too)
//   received <N> | received: <N>    N received
//   <K> completion tokens           K tokens
//   scored <N> | scored: <N>        N scored
//   best: <value> | best <number>   the last one wins; a number is kept as a number
// A count never seen stays null, so "none reported" differs from "zero".

export interface BatchCounts {
  timings: Record<string, number>;
  timingSeconds: number | null;
  compiled: number | null;
  candidates: number | null;
  received: number | null;
  completionTokens: number | null;
  scored: number | null;
  best: number | string | null;
}

export function emptyCounts(): BatchCounts {
  // No prototype: a timing named "__proto__" in a log line must stay a plain key.
  const timings = Object.create(null) as Record<string, number>;
  return { timings, timingSeconds: null, compiled: null, candidates: null, received: null, completionTokens: null, scored: null, best: null };
}

const NUMBER = String.raw`-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?`;
const TIMING = /\btiming:\s+(\S+)\s+(\d+(?:\.\d+)?)\s*s\b/;
const COMPILED = /\b(\d+)\s*\/\s*(\d+)\s+candidate(?:s|\(s\))?\s+compiled\b/;
const RECEIVED = /\breceived:?\s+(\d+)\b/;
const TOKENS = /\b(\d+)\s+completion\s+tokens\b/;
const SCORED = /\bscored:?\s+(\d+)\b/;
const BEST = new RegExp(String.raw`\bbest(?::\s*(\S+)|\s+(${NUMBER})(?!\S))`);

const add = (total: number | null, n: number): number => (total ?? 0) + n;

/** Folds one log line into `counts` (mutates and returns it). */
export function countLine(counts: BatchCounts, line: string): BatchCounts {
  const timing = TIMING.exec(line);
  if (timing) {
    const [, name = '', seconds = '0'] = timing;
    counts.timings[name] = round((counts.timings[name] ?? 0) + Number(seconds));
    counts.timingSeconds = round(add(counts.timingSeconds, Number(seconds)));
  }
  const compiled = COMPILED.exec(line);
  if (compiled) {
    counts.compiled = add(counts.compiled, Number(compiled[1]));
    counts.candidates = add(counts.candidates, Number(compiled[2]));
  }
  const received = RECEIVED.exec(line);
  if (received) counts.received = add(counts.received, Number(received[1]));
  const tokens = TOKENS.exec(line);
  if (tokens) counts.completionTokens = add(counts.completionTokens, Number(tokens[1]));
  const scored = SCORED.exec(line);
  if (scored) counts.scored = add(counts.scored, Number(scored[1]));
  const best = BEST.exec(line);
  if (best) {
    const value = best[1] ?? best[2] ?? '';
    counts.best = new RegExp(`^${NUMBER}$`).test(value) ? Number(value) : value;
  }
  return counts;
}

export function parseCounts(lines: Iterable<string>): BatchCounts {
  const counts = emptyCounts();
  for (const line of lines) countLine(counts, line);
  return counts;
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
