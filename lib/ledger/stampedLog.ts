// Passes a command's output through unchanged and writes each complete line, prefixed with the
// time it arrived, to the measure dir's batch.log. Every line is also handed to `onLine` (counts).
// When the reader of the passthrough goes away, the passthrough stops and the log goes on.
import { closeSync, openSync, writeSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

export class StampedLog {
  private readonly fd: number;
  private readonly flushers: (() => void)[] = [];

  constructor(
    path: string,
    private readonly onLine: (line: string) => void,
  ) {
    this.fd = openSync(path, 'a', 0o644);
  }

  attach(source: Readable, passTo: Writable): void {
    const decoder = new StringDecoder('utf8');
    let pending = '';
    // A reader that went away (a closed pipe, an ssh session that ended) must not stop the batch:
    // the passthrough just stops, and the log goes on. The passthrough owns passTo's errors from
    // here on, so that no other handler (the entry point exits on EPIPE) ends the wrapper before
    // its ledger line is written.
    let passing = true;
    passTo.removeAllListeners('error');
    passTo.on('error', () => (passing = false));
    const take = (text: string) => {
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      this.write(lines);
    };
    const flush = () => {
      take(decoder.end());
      if (pending !== '') this.write([pending]);
      pending = '';
    };
    source.on('data', (chunk: Buffer) => {
      if (passing && !passTo.destroyed) passTo.write(chunk);
      take(decoder.write(chunk));
    });
    source.on('end', flush);
    this.flushers.push(flush);
  }

  /** A line of the wrapper's own, stamped like the command's (not passed to onLine). */
  note(line: string): void {
    writeSync(this.fd, `${new Date().toISOString()} ${line}\n`);
  }

  close(): void {
    for (const flush of this.flushers) flush();
    closeSync(this.fd);
  }

  private write(lines: string[]): void {
    if (lines.length === 0) return;
    const at = new Date().toISOString();
    const clean = lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
    writeSync(this.fd, clean.map((line) => `${at} ${line}\n`).join(''));
    for (const line of clean) this.onLine(line);
  }
}
