// Reads `git cat-file --batch` answers off a process's stdout, one object at a time.
import type { Readable } from 'node:stream';

/** One object as `cat-file --batch` prints it; null for `<name> missing` (or ambiguous). */
export interface BatchObject {
  oid: string;
  type: string;
  content: Buffer;
}

/**
 * Reads `cat-file --batch` answers off a stream, one at a time. The stream's chunks are kept in a
 * list and joined once an answer is whole: joining on every 64 KB chunk made a large object cost
 * quadratic time.
 */
export class BatchReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private ended = false;
  private wake: (() => void) | null = null;

  constructor(stream: Readable) {
    stream.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.length += chunk.length;
      this.wake?.();
    });
    stream.on('close', () => {
      this.ended = true;
      this.wake?.();
    });
  }

  private async need(bytes: () => number | null): Promise<number> {
    for (;;) {
      const n = bytes();
      if (n !== null) return n;
      if (this.ended) throw new Error('git cat-file --batch ended before its answer');
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }

  /** Where the first line ends in what has arrived, null before it has. */
  private lineEnd(): number | null {
    let offset = 0;
    for (const chunk of this.chunks) {
      const at = chunk.indexOf(0x0a);
      if (at >= 0) return offset + at;
      offset += chunk.length;
    }
    return null;
  }

  /** The first `n` bytes, taken off what has arrived (one join). */
  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.length);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.length = rest.length;
    return all.subarray(0, n);
  }

  async next(): Promise<BatchObject | null> {
    const eol = await this.need(() => this.lineEnd());
    const header = this.take(eol + 1)
      .subarray(0, eol)
      .toString('utf8');
    const [oid = '', type = '', size = ''] = header.split(' ');
    if (!/^[0-9a-f]{40,64}$/.test(oid) || !/^\d+$/.test(size)) return null; // "<name> missing", "<name> ambiguous"
    const end = Number(size);
    await this.need(() => (this.length > end ? end : null)); // the content, then a newline
    const content = this.take(end + 1).subarray(0, end);
    return { oid, type, content };
  }
}
