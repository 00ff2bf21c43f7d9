import { createHash } from 'node:crypto';
import { isRecord } from '../store/formats/isRecord.js';
import type { Gate } from './schema.js';

/** JSON with object keys sorted at every level, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The key verdicts and proofs are cached by: a change to any gate (after defaults) changes it. */
export function gatesHash(gates: readonly Gate[]): string {
  return createHash('sha256').update(canonicalJson(gates)).digest('hex').slice(0, 16);
}
