// Reading a train's log (logs/<train>.log) for the failure story. A gate's section starts with
// `== gate <name>: [argv] (timeout Ns)` (`(timeout Ns, sandboxed)` in a sandbox) and ends with `== gate <name>: <status> after Ns`;
// refresh entries write the same pair as `== refresh "<message>": ...`. The reader takes one line
// at a time (a log can be long) and keeps only an excerpt of each section: the lines that carry
// the failure and the last lines (excerpt.ts).
import { ExcerptPicker } from './excerpt.js';

export interface GateSection {
  /** `test`, or `refresh "regenerate the lock file"`. */
  name: string;
  /** How it ended; null when the section has no end line (still running, or the drainer died). */
  status: string | null;
  seconds: number | null;
  /** The excerpt of its output (header and end line excluded): failure lines, then the last lines (excerpt.ts). */
  excerpt: string[];
}

interface OpenSection {
  section: GateSection;
  picker: ExcerptPicker;
}

const START = /^== (gate [A-Za-z0-9._-]+|refresh ".*"): \[.*\] \(timeout [0-9.]+s(?:, sandboxed(?: with network)?)?\)$/;
const END = /^== (gate [A-Za-z0-9._-]+|refresh ".*"): (.+) after ([0-9.]+)s$/;

function sectionName(match: string): string {
  return match.startsWith('gate ') ? match.slice('gate '.length) : match;
}

export class GateLogReader {
  private readonly sections: OpenSection[] = [];
  private open: OpenSection | null = null;
  private readonly whole: ExcerptPicker;

  /** `max`: the most lines of each excerpt. */
  constructor(private readonly max = 20) {
    this.whole = new ExcerptPicker(max);
  }

  push(line: string): void {
    this.whole.push(line);
    const start = START.exec(line);
    if (start) {
      this.open = { section: { name: sectionName(start[1] as string), status: null, seconds: null, excerpt: [] }, picker: new ExcerptPicker(this.max) };
      this.sections.push(this.open);
      return;
    }
    const end = END.exec(line);
    if (end && this.open && this.open.section.name === sectionName(end[1] as string)) {
      this.open.section.status = end[2] as string;
      this.open.section.seconds = Number(end[3]);
      this.open = null;
      return;
    }
    this.open?.picker.push(line);
  }

  /** The sections, each with its excerpt, and the excerpt of the whole log (for a log without a section). */
  result(): { sections: GateSection[]; excerpt: string[] } {
    return { sections: this.sections.map(({ section, picker }) => ({ ...section, excerpt: picker.lines() })), excerpt: this.whole.lines() };
  }
}

export function readGateLog(text: string, max = 20): { sections: GateSection[]; excerpt: string[] } {
  const reader = new GateLogReader(max);
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) reader.push(line);
  return reader.result();
}

/**
 * The section that decided a verdict: the last one of the named gate, else the last that did not
 * end with `exit 0`, else the last section; null when the log has no gate section.
 */
export function decidingSection(sections: readonly GateSection[], gate: string | null): GateSection | null {
  const named = gate === null ? [] : sections.filter((section) => section.name === gate);
  if (named.length) return named[named.length - 1] as GateSection;
  const failed = sections.filter((section) => section.status !== 'exit 0');
  if (failed.length) return failed[failed.length - 1] as GateSection;
  return sections.length ? (sections[sections.length - 1] as GateSection) : null;
}
