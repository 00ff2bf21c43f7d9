// The excerpt of a failed gate's output that `land why`, `land show` and the job record quote: the
// lines that carry the failure, with a little context, then the output's last lines. Test
// runners print the failure early and a summary last (node --test: `not ok 3 - ...`, then
// `# pass 5`, `# fail 1`, ...; pytest: `E   assert ...`, then `1 failed`), so the last lines alone
// miss it. One pass, memory bounded: the picker sees each line once and keeps at most `max`
// lines of the tail and FAILURE_BUDGET picked lines.

/** A line that carries a failure in the usual runners' output (TAP, jest, pytest, mocha, go, cargo, compilers). */
export const FAILURE_LINE = /\bnot ok\b|\bFAIL|\bERROR\b|Error\b|\berror\b|\bassert|\bAssert|^E {2,}|Traceback|\bpanic|✖|✕|●/;

/** At most this many lines are picked for carrying a failure (each with its context)... */
export const FAILURE_BUDGET = 12;
/** ...the line before each, and the lines after it (an error's message follows its heading). */
const CONTEXT_BEFORE = 1;
const CONTEXT_AFTER = 3;
/** However many failure lines were picked, the excerpt ends with at least this many last lines. */
export const TAIL_MIN = 8;

interface Numbered {
  n: number;
  text: string;
}

/** The line standing for `count` lines left out between two parts of an excerpt. */
export function gapLine(count: number): string {
  return `… ${count} line(s) left out …`;
}

export class ExcerptPicker {
  private count = 0;
  private readonly picked: Numbered[] = [];
  private readonly before: Numbered[] = [];
  private readonly tail: Numbered[] = [];
  private afterLeft = 0;

  /** `max`: the most lines the excerpt has, gap lines included. */
  constructor(private readonly max: number) {}

  push(text: string): void {
    const line = { n: ++this.count, text };
    this.tail.push(line);
    if (this.tail.length > this.max) this.tail.shift();
    this.pick(line);
    this.before.push(line);
    if (this.before.length > CONTEXT_BEFORE) this.before.shift();
  }

  private pick(line: Numbered): void {
    if (this.picked.length >= FAILURE_BUDGET) return;
    if (FAILURE_LINE.test(line.text)) {
      const last = this.picked[this.picked.length - 1]?.n ?? 0;
      for (const context of this.before) if (context.n > last && this.picked.length < FAILURE_BUDGET - 1) this.picked.push(context);
      this.picked.push(line);
      this.afterLeft = CONTEXT_AFTER;
    } else if (this.afterLeft > 0) {
      this.picked.push(line);
      this.afterLeft -= 1;
    }
  }

  /** The excerpt: the picked lines above the tail, then the tail, a gap line where lines were left out. */
  lines(): string[] {
    return mergeExcerpt(this.picked, this.tail, this.max);
  }
}

function render(parts: readonly Numbered[]): string[] {
  const out: string[] = [];
  let previous: number | null = null;
  for (const part of parts) {
    if (previous !== null && part.n > previous + 1) out.push(gapLine(part.n - previous - 1));
    out.push(part.text);
    previous = part.n;
  }
  return out;
}

/**
 * Picked lines (in order) and the last lines (in order) as at most `max` lines: every picked line
 * above as long a tail as fits; when even TAIL_MIN last lines do not fit beside them, the picked
 * lines are cut from the end (the first failure is the one to read) and the tail grows back. Pure.
 */
export function mergeExcerpt(picked: readonly Numbered[], tail: readonly Numbered[], max: number): string[] {
  const minTail = Math.min(TAIL_MIN, tail.length, max);
  for (let keep = picked.length; keep >= 0; keep -= 1) {
    for (let size = Math.min(tail.length, max); size >= minTail; size -= 1) {
      const last = tail.slice(tail.length - size);
      const first = last[0]?.n ?? Number.POSITIVE_INFINITY;
      const lines = render([...picked.slice(0, keep).filter((line) => line.n < first), ...last]);
      if (lines.length <= max) return lines;
    }
  }
  return render(tail.slice(tail.length - minTail));
}

/** The excerpt of some lines (pure; what the picker gives for them). */
export function excerptOf(lines: readonly string[], max: number): string[] {
  const picker = new ExcerptPicker(max);
  for (const line of lines) picker.push(line);
  return picker.lines();
}
