// The excerpt of a failed gate's output that `land why`, `land show` and the job record quote: the
// lines that carry the failure, with a little context, then the output's last lines. Test
// runners print the failure early and a summary last (node --test: `not ok 3 - ...`, then
// `# pass 5`, `# fail 1`, ...; pytest: `E   assert ...`, then `1 failed`), so the last lines alone
// miss it. One pass, memory bounded: the picker sees each line once and keeps at most `max`
// lines of the tail and FAILURE_BUDGET picked lines.
//
// Passing tests are often named after what they check ("throws an error on bad input"), so a
// word like `error` or `assert` is only a weak marker: a strong one (`not ok`, `FAIL`, pytest's
// `E   `, a traceback, a panic, a runner's cross) takes the budget back from weak picks, the
// latest first. TAP's passing and structure lines (`ok 3 - ...`, `# Subtest: ...`) and npm's
// warnings are never picked for what they say.

/** A line that surely carries a failure in the usual runners' output (TAP, jest, pytest, mocha, go, cargo). */
export const STRONG_FAILURE_LINE = /\bnot ok\b|\bFAIL|\bERROR\b|^E {2,}|Traceback|\bpanic|✖|✕|●/;
/** A line that may carry one (compilers, assertion libraries, plain scripts): picked while the budget allows. */
export const WEAK_FAILURE_LINE = /Error\b|\berror\b|\bassert|\bAssert/;
/** Lines never picked for their words: TAP's passing tests and subtest headings, npm's warnings. */
export const NOT_A_FAILURE_LINE = /^\s*ok\b|# Subtest:|^npm WARN\b/;

/** How strongly a line marks a failure: 2 surely, 1 maybe, 0 not. Pure. */
export function failureStrength(text: string): 0 | 1 | 2 {
  if (NOT_A_FAILURE_LINE.test(text)) return 0;
  if (STRONG_FAILURE_LINE.test(text)) return 2;
  return WEAK_FAILURE_LINE.test(text) ? 1 : 0;
}

/** At most this many lines are picked for carrying a failure (each with its context)... */
export const FAILURE_BUDGET = 12;
/** ...the line before each, and the lines after it (an error's message follows its heading). */
const CONTEXT_BEFORE = 1;
const CONTEXT_AFTER = 3;
/** However many failure lines were picked, the excerpt ends with at least this many last lines. */
export const TAIL_MIN = 8;

export interface Numbered {
  n: number;
  text: string;
}

/** The line standing for `count` lines left out between two parts of an excerpt. */
export function gapLine(count: number): string {
  return `… ${count} line(s) left out …`;
}

/** A failure line with its context, and how strongly it marks a failure. */
export interface Group {
  strong: boolean;
  lines: Numbered[];
}

export class ExcerptPicker {
  private count = 0;
  private readonly groups: Group[] = [];
  /** Lines picked, strong groups and weak groups apart: each kind keeps at most FAILURE_BUDGET. */
  private readonly size = { strong: 0, weak: 0 };
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
    const strength = failureStrength(line.text);
    // A failure line of a kind whose budget is spent is still the context of the group before it.
    if (strength > 0 && this.room(strength === 2) > 0) this.open(line, strength === 2);
    else if (this.afterLeft > 0) {
      this.afterLeft -= 1;
      const group = this.groups[this.groups.length - 1];
      if (group && this.room(group.strong) > 0) this.add(group, [line]);
    }
  }

  private room(strong: boolean): number {
    return FAILURE_BUDGET - (strong ? this.size.strong : this.size.weak);
  }

  private add(group: Group, lines: Numbered[]): void {
    group.lines.push(...lines);
    if (group.strong) this.size.strong += lines.length;
    else this.size.weak += lines.length;
  }

  /** Starts a group at a failure line (with the line before it, as its kind's room allows). */
  private open(line: Numbered, strong: boolean): void {
    const room = this.room(strong);
    const last = this.groups[this.groups.length - 1]?.lines.at(-1)?.n ?? 0;
    const group: Group = { strong, lines: [] };
    this.groups.push(group);
    this.add(group, [...this.before.filter((context) => context.n > last), line].slice(-room));
    this.afterLeft = CONTEXT_AFTER;
  }

  /** The excerpt: the picked lines above the tail, then the tail, a gap line where lines were left out. */
  lines(): string[] {
    const shown = this.tail[Math.max(0, this.tail.length - TAIL_MIN)]?.n ?? Number.POSITIVE_INFINITY;
    return mergeExcerpt(choosePicked(this.groups, shown), this.tail, this.max);
  }
}

/**
 * The picked lines the excerpt quotes, in the order they are given up last: the strong groups,
 * then the weak ones in the budget left (a group that does not fit whole gives its first lines),
 * each kind in output order; lines from `shown` on are in the tail anyway and cost nothing. Pure.
 */
export function choosePicked(groups: readonly Group[], shown: number): Numbered[] {
  const taken = new Map<Group, Numbered[]>();
  let left = FAILURE_BUDGET;
  for (const strong of [true, false]) {
    for (const group of groups) {
      if (group.strong !== strong || left <= 0) continue;
      const lines: Numbered[] = [];
      for (const line of group.lines) {
        if (line.n < shown && left === 0) break;
        if (line.n < shown) left -= 1;
        lines.push(line);
      }
      taken.set(group, lines);
    }
  }
  return [...groups.filter((group) => group.strong), ...groups.filter((group) => !group.strong)].flatMap((group) => taken.get(group) ?? []);
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
 * Picked lines (the surest first, else in order) and the last lines (in order) as at most `max`
 * lines: every picked line, in output order, above as long a tail as fits; when even TAIL_MIN last
 * lines do not fit beside them, the picked lines are cut from the end of the list (the weak ones,
 * then the later ones: the first failure is the one to read) and the tail grows back. Pure.
 */
export function mergeExcerpt(picked: readonly Numbered[], tail: readonly Numbered[], max: number): string[] {
  const minTail = Math.min(TAIL_MIN, tail.length, max);
  for (let keep = picked.length; keep >= 0; keep -= 1) {
    for (let size = Math.min(tail.length, max); size >= minTail; size -= 1) {
      const last = tail.slice(tail.length - size);
      const first = last[0]?.n ?? Number.POSITIVE_INFINITY;
      const kept = picked
        .slice(0, keep)
        .filter((line) => line.n < first)
        .sort((a, b) => a.n - b.n);
      const lines = render([...kept, ...last]);
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
