// Gate output for `land repro --run`: the drainer's gate runner writes into a LogSink (a log file);
// this one passes everything straight to a terminal stream instead. Nothing is stored, so nothing
// is redacted: the values a policy passes through are the caller's own.
import type { Writable } from 'node:stream';
import { LogSink } from '../landing/gates/logSink.js';

export class TerminalSink extends LogSink {
  constructor(private readonly out: Writable) {
    super('/dev/null');
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.out.write(chunk);
    callback();
  }

  override line(text: string): void {
    this.out.write(`${text}\n`);
  }

  override setSecrets(): void {
    // nothing is stored
  }
}
