// A log's size cap (policy `logs.maxBytes`): the first half of the allowance goes to the file as it
// comes (so `land log -f` follows it live), the last half is kept in a bounded in-memory ring and
// written when the log closes, after one line that says how much was cut. The lines land wrote
// itself in the cut part (gate headers and end lines) are kept and written after the cut line, so
// that the log's sections still read right. Memory stays bounded whatever a gate prints.

import { DEFAULT_LOG_MAX_BYTES } from '../../config/logLimits.js';

/** How far back from the head's end (and forward into the tail) a cut looks for a line boundary. */
const LINE_SLACK = 4096;
/** At most this many bytes of land's own lines from the cut part are kept (the newest). */
const LAND_LINES_MAX_BYTES = 16 * 1024;
/** Gate output is kept in chunks of about this size (fewer, larger ring entries). */
const CHUNK_BYTES = 16 * 1024;

export type Origin = 'gate' | 'land';

interface Piece {
  bytes: Buffer;
  origin: Origin;
}

const NEWLINE = 0x0a;
const isContinuation = (byte: number | undefined) => byte !== undefined && (byte & 0xc0) === 0x80;

/** Where to end a head of at most `room` bytes of `bytes`: after a newline near the end, else on a character boundary. */
function headCut(bytes: Buffer, room: number, origin: Origin): number {
  if (origin === 'land') return 0; // land's own line is never split: it goes to the tail whole
  const newline = bytes.lastIndexOf(NEWLINE, room - 1);
  if (newline !== -1 && room - (newline + 1) <= LINE_SLACK) return newline + 1;
  let cut = room;
  while (cut > 0 && isContinuation(bytes[cut])) cut -= 1;
  return cut;
}

/** Where the kept tail should start in `bytes`: after the first newline near its start, else on a character boundary. */
function tailStart(bytes: Buffer): number {
  const newline = bytes.indexOf(NEWLINE);
  if (newline !== -1 && newline < LINE_SLACK) return newline + 1;
  let start = 0;
  while (start < bytes.length && isContinuation(bytes[start])) start += 1;
  return start;
}

const count = (n: number) => n.toLocaleString('en-US');

export class LogCap {
  private readonly headBudget: number;
  private readonly tailBudget: number;
  private headBytes = 0;
  private headEndsLine = true;
  private inTail = false;
  private ring: Piece[] = [];
  private ringStart = 0;
  private ringBytes = 0;
  private cutBytes = 0;
  private landLines: Buffer[] = [];
  private landLineBytes = 0;

  /** `write` receives what goes to the file now; `maxBytes` is the allowance for head and tail together. */
  constructor(
    private readonly write: (bytes: Buffer) => void,
    readonly maxBytes: number = DEFAULT_LOG_MAX_BYTES,
  ) {
    this.headBudget = Math.floor(maxBytes / 2);
    this.tailBudget = maxBytes - this.headBudget;
  }

  push(bytes: Buffer, origin: Origin): void {
    if (!bytes.length) return;
    if (this.inTail) {
      this.toRing(bytes, origin);
      return;
    }
    const room = this.headBudget - this.headBytes;
    const cut = bytes.length <= room ? bytes.length : headCut(bytes, room, origin);
    if (cut > 0) {
      this.write(bytes.subarray(0, cut));
      this.headBytes += cut;
      this.headEndsLine = bytes[cut - 1] === NEWLINE;
    }
    if (cut < bytes.length) {
      this.inTail = true;
      this.toRing(Buffer.from(bytes.subarray(cut)), origin);
    }
  }

  private toRing(bytes: Buffer, origin: Origin): void {
    const last = this.ring[this.ring.length - 1];
    if (origin === 'gate' && last?.origin === 'gate' && last.bytes.length + bytes.length <= CHUNK_BYTES && this.ring.length > this.ringStart) {
      last.bytes = Buffer.concat([last.bytes, bytes]);
    } else {
      this.ring.push({ bytes: origin === 'gate' && bytes.length <= CHUNK_BYTES ? Buffer.from(bytes) : bytes, origin });
    }
    this.ringBytes += bytes.length;
    this.evict();
  }

  /** Drops the oldest bytes of the ring until it fits its budget; land's lines move to landLines. */
  private evict(): void {
    while (this.ringBytes > this.tailBudget && this.ringStart < this.ring.length) {
      const front = this.ring[this.ringStart] as Piece;
      const excess = this.ringBytes - this.tailBudget;
      if (front.origin === 'land' || front.bytes.length <= excess) {
        this.ringStart += 1;
        this.ringBytes -= front.bytes.length;
        if (front.origin === 'land') this.keepLandLine(front.bytes);
        else this.cutBytes += front.bytes.length;
      } else {
        // A copy, so that the rest of a large chunk is not kept alive by a view of it.
        front.bytes = Buffer.from(front.bytes.subarray(excess));
        this.ringBytes -= excess;
        this.cutBytes += excess;
      }
    }
    if (this.ringStart > 1024 && this.ringStart * 2 > this.ring.length) {
      this.ring = this.ring.slice(this.ringStart);
      this.ringStart = 0;
    }
  }

  private keepLandLine(bytes: Buffer): void {
    this.landLines.push(bytes);
    this.landLineBytes += bytes.length;
    while (this.landLineBytes > LAND_LINES_MAX_BYTES && this.landLines.length) {
      const dropped = this.landLines.shift() as Buffer;
      this.landLineBytes -= dropped.length;
      this.cutBytes += dropped.length;
    }
  }

  /** The bytes that follow the head when the log closes: the cut line (if anything was cut), land's lines from the cut part, the tail. */
  finish(): Buffer[] {
    const pieces = this.ring.slice(this.ringStart);
    this.ring = [];
    this.ringStart = 0;
    // Only land's own lines left the ring: the order is intact, there is nothing to announce.
    if (this.cutBytes === 0) return [...this.landLines, ...pieces.map((piece) => piece.bytes)];
    const first = pieces[0];
    if (first?.origin === 'gate') {
      const start = tailStart(first.bytes);
      first.bytes = first.bytes.subarray(start);
      this.cutBytes += start;
      this.ringBytes -= start;
    }
    const between = this.landLines.length ? `, and below, the ${this.landLines.length} line(s) land wrote in the cut part` : '';
    const line = `${this.headEndsLine ? '' : '\n'}[land: ${count(this.cutBytes)} bytes cut here (logs.maxBytes ${count(this.maxBytes)}); the log keeps its first ${count(this.headBytes)} and last ${count(this.ringBytes)} bytes${between}]\n`;
    return [Buffer.from(line), ...this.landLines, ...pieces.map((piece) => piece.bytes)];
  }

  /** Bytes dropped so far (0 while the log fits). */
  get cut(): number {
    return this.cutBytes;
  }
}
