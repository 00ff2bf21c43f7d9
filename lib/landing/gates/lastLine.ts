// Remembers the last non-empty line of a byte stream without keeping the stream: enough to quote
// a failed command's last words in a one-line message. Bounded: a line longer than MAX_CHARS is
// kept by its end.
import { StringDecoder } from 'node:string_decoder';

const MAX_CHARS = 500;

export class LastLine {
  private readonly decoder = new StringDecoder('utf8');
  /** The line being written (no newline seen yet). */
  private pending = '';
  private complete: string | null = null;

  write(chunk: Buffer | string): void {
    const text = this.pending + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    const cut = text.lastIndexOf('\n');
    if (cut === -1) {
      this.pending = text.slice(-MAX_CHARS);
      return;
    }
    const lines = text.slice(0, cut).split('\n');
    for (let i = lines.length - 1; i >= 0; i -= 1) {
      const line = clean(lines[i] ?? '');
      if (line) {
        this.complete = line;
        break;
      }
    }
    this.pending = text.slice(cut + 1).slice(-MAX_CHARS);
  }

  /** The last non-empty line, the unfinished one included; null when every line was blank. */
  last(): string | null {
    this.pending += this.decoder.end();
    return clean(this.pending) || this.complete;
  }
}

/** One printable line: carriage returns and other control characters dropped, trimmed, bounded. */
function clean(line: string): string {
  // eslint-disable-next-line no-control-regex
  return line
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(-MAX_CHARS);
}
