// Reading the state folder's JSON files: a missing file is null, a file that does not parse is a
// problem described by where it fails (the callers decide whether that is an error or a miss).
import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import type { JobRecord } from '../formats/index.js';
import { asCountedJob } from '../formats/jobShape.js';

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

function describeZod(error: z.ZodError): string {
  const first = error.issues[0];
  if (!first) return 'invalid record';
  const where = first.path.length ? first.path.join('.') : '(root)';
  return `${where}: ${first.message}`;
}

/** A file's text; null when it does not exist. */
export function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

export function parseWith<T>(schema: z.ZodType<T>, text: string): Parsed<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `not valid JSON (${(error as Error).message})` };
  }
  const result = schema.safeParse(raw);
  return result.success ? { ok: true, value: result.data } : { ok: false, problem: describeZod(result.error) };
}

/** A record checked only for the shape counting readers need (lib/store/formats/jobShape.ts). */
export function parseShape(text: string): Parsed<JobRecord> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `not valid JSON (${(error as Error).message})` };
  }
  const counted = asCountedJob(raw);
  return counted.ok ? { ok: true, value: counted.job } : counted;
}

/** One JSON line through a safeParse-like check; null when it is not JSON or not of the shape. */
export function parseJsonLine<T>(line: string, check: (raw: unknown) => { success: boolean; data?: T }): T | null {
  if (line.trim() === '') return null;
  try {
    const result = check(JSON.parse(line));
    return result.success ? (result.data as T) : null;
  } catch {
    return null;
  }
}
