// A train's log file: gate output appended line by line, with passed-through secret values
// replaced by "***" before anything reaches the disk, and capped at `logs.maxBytes` (head and tail
// kept, the middle cut: lib/landing/gates/logCap.ts). Redaction happens before the cap, so a cut
// never exposes part of a secret. Memory stays bounded: a line without a newline is written in
// pieces once it grows past PENDING_MAX_CHARS.
import { createWriteStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { Writable } from 'node:stream';
import { DEFAULT_LOG_MAX_BYTES } from '../../config/logLimits.js';
import { LogCap } from './logCap.js';

/** Past this many characters, an unfinished line is written up to where no secret can straddle. */
const PENDING_MAX_CHARS = 64 * 1024;

export interface LogSinkOptions {
  /** The cap for head and tail together (policy `logs.maxBytes`); default 10 MiB. */
  maxBytes?: number;
  /** Where the log goes instead of the file at `path` (an executor's runner: its standard output). */
  to?: Writable;
}

/** A secret's mask: "***" for each of its lines, its line breaks kept. */
export function masked(secret: string): string {
  return secret.replace(/[^\r\n]+/g, '***');
}

/**
 * Where `text` may be split so that no occurrence of a secret straddles the split: at most `at`,
 * moved back to the start of any occurrence that begins before `at` and ends after it.
 */
export function safeSplit(text: string, at: number, secrets: readonly string[]): number {
  let split = at;
  for (let moved = true; moved; ) {
    moved = false;
    for (const secret of secrets) {
      const found = text.indexOf(secret, Math.max(0, split - secret.length + 1));
      if (found !== -1 && found < split) {
        split = found;
        moved = true;
      }
    }
  }
  return split;
}

export class LogSink extends Writable {
  private readonly file: Writable;
  private readonly cap: LogCap;
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private secrets: string[] = [];
  /** Whether the last gate text written ended its line (land's own lines start on a line of their own). */
  private atLineStart = true;

  constructor(
    readonly path: string,
    opts: LogSinkOptions = {},
  ) {
    super();
    this.file = opts.to ?? createWriteStream(path, { flags: 'a' });
    this.cap = new LogCap((bytes) => this.file.write(bytes), opts.maxBytes ?? DEFAULT_LOG_MAX_BYTES);
  }

  setSecrets(secrets: readonly string[]): void {
    this.flushPending();
    this.secrets = secrets.filter((secret) => secret.length > 0).sort((a, b) => b.length - a.length);
  }

  /**
   * `text` with the current secrets replaced by "***", one per line of the secret: a value of several
   * lines reads the same whether it reached the log whole or a line at a time (each of its lines is
   * a secret too, lib/landing/gates/gateEnv.ts secretsOf), however the gate's output was chunked.
   */
  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join(masked(secret));
    return out;
  }

  private gateText(text: string): void {
    if (!text) return;
    this.cap.push(Buffer.from(this.redact(text)), 'gate');
    this.atLineStart = text.endsWith('\n');
  }

  private flushPending(): void {
    this.gateText(this.pending + this.decoder.end());
    this.pending = '';
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const text = this.pending + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    let keepFrom = text.lastIndexOf('\n') + 1;
    if (text.length - keepFrom > PENDING_MAX_CHARS) {
      // A long line with no end yet: write it but the few characters that may begin a secret.
      const longest = this.secrets[0]?.length ?? 0;
      keepFrom = safeSplit(text, text.length - Math.max(0, longest - 1), this.secrets);
    }
    this.gateText(text.slice(0, keepFrom));
    this.pending = text.slice(keepFrom);
    callback();
  }

  /** One line of land's own (a gate's header or end line), on a line of its own even after output with no final newline. */
  line(text: string): void {
    this.flushPending();
    this.cap.push(Buffer.from(`${this.atLineStart ? '' : '\n'}${text}\n`), 'land');
    this.atLineStart = true;
  }

  close(): Promise<void> {
    this.flushPending();
    for (const bytes of this.cap.finish()) this.file.write(bytes);
    return new Promise((resolve) => this.file.end(resolve));
  }
}
