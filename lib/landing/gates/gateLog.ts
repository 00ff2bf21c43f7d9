// Reading a train's log (logs/<train>.log) for the failure story. A gate's section starts with
// `== gate <name>: [argv] (timeout Ns)` (`(timeout Ns, sandboxed)` in a sandbox) and ends with `== gate <name>: <status> after Ns`;
// refresh entries write the same pair as `== refresh "<message>": ...`. The reader takes one line
// at a time (a log can be long) and keeps only the last lines of each section.

export interface GateSection {
  /** `test`, or `refresh "regenerate the lock file"`. */
  name: string;
  /** How it ended; null when the section has no end line (still running, or the drainer died). */
  status: string | null;
  seconds: number | null;
  /** The last lines of its output (header and end line excluded). */
  tail: string[];
}

const START = /^== (gate [A-Za-z0-9._-]+|refresh ".*"): \[.*\] \(timeout [0-9.]+s(?:, sandboxed(?: with network)?)?\)$/;
const END = /^== (gate [A-Za-z0-9._-]+|refresh ".*"): (.+) after ([0-9.]+)s$/;

function sectionName(match: string): string {
  return match.startsWith('gate ') ? match.slice('gate '.length) : match;
}

export class GateLogReader {
  private readonly sections: GateSection[] = [];
  private open: GateSection | null = null;
  private readonly last: string[] = [];

  constructor(private readonly keep = 15) {}

  private remember(into: string[], line: string): void {
    into.push(line);
    if (into.length > this.keep) into.shift();
  }

  push(line: string): void {
    this.remember(this.last, line);
    const start = START.exec(line);
    if (start) {
      this.open = { name: sectionName(start[1] as string), status: null, seconds: null, tail: [] };
      this.sections.push(this.open);
      return;
    }
    const end = END.exec(line);
    if (end && this.open && this.open.name === sectionName(end[1] as string)) {
      this.open.status = end[2] as string;
      this.open.seconds = Number(end[3]);
      this.open = null;
      return;
    }
    if (this.open) this.remember(this.open.tail, line);
  }

  result(): { sections: GateSection[]; tail: string[] } {
    return { sections: this.sections, tail: [...this.last] };
  }
}

export function readGateLog(text: string, keep = 15): { sections: GateSection[]; tail: string[] } {
  const reader = new GateLogReader(keep);
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
