// A train's log file: gate output appended line by line, with passed-through secret values
// replaced by "***" before anything reaches the disk.
import { createWriteStream, type WriteStream } from 'node:fs';
import { Writable } from 'node:stream';

export class LogSink extends Writable {
  private readonly file: WriteStream;
  private pending = '';
  private secrets: string[] = [];

  constructor(readonly path: string) {
    super();
    this.file = createWriteStream(path, { flags: 'a' });
  }

  setSecrets(secrets: readonly string[]): void {
    this.flushPending();
    this.secrets = [...secrets].sort((a, b) => b.length - a.length);
  }

  /** `text` with the current secrets replaced by "***". */
  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join('***');
    return out;
  }

  private flushPending(): void {
    if (this.pending) this.file.write(this.redact(this.pending));
    this.pending = '';
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const text = this.pending + chunk.toString();
    const cut = text.lastIndexOf('\n');
    if (cut === -1) {
      this.pending = text;
    } else {
      this.file.write(this.redact(text.slice(0, cut + 1)));
      this.pending = text.slice(cut + 1);
    }
    callback();
  }

  line(text: string): void {
    this.flushPending();
    this.file.write(`${text}\n`);
  }

  close(): Promise<void> {
    this.flushPending();
    return new Promise((resolve) => this.file.end(resolve));
  }
}
