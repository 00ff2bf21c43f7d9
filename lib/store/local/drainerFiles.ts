// A drainer's own files that no other clone reads: the landing token's hash (which land's
// protecting hook checks), the record of that hook, and the state of publish.auto.
import { rmSync } from 'node:fs';
import { writeFileAtomic, writeJsonAtomic } from '../atomic.js';
import { formatTokenRecord, newToken, parseTokenRecord, processStart, tokenHash, type TokenRecord } from '../landingToken.js';
import type { StatePaths } from '../paths.js';
import { executorHealthFileSchema, protectHookSchema, type ExecutorHealthFile, type ProtectHook } from '../formats/index.js';
import { CACHE } from './caches.js';
import { parseWith, readText } from './parse.js';

/** The token file's record (hash, pid, start time), or null when none (or unreadable). */
export function readToken(paths: StatePaths): TokenRecord | null {
  return parseTokenRecord(readText(paths.token));
}

/**
 * Arms the protecting hook for one move of the target: a fresh token, of which only the hash
 * (with this process's pid and start time) is written. The token is returned, for the
 * environment of the one git process that moves the target; nothing else ever holds it.
 */
export function writeToken(paths: StatePaths): string {
  const token = newToken();
  writeFileAtomic(paths.token, formatTokenRecord({ hash: tokenHash(token), pid: process.pid, start: processStart(process.pid) }), CACHE);
  return token;
}

/** Disarms: removes the token file when it still holds `token`'s hash (or, without a token, always). */
export function clearToken(paths: StatePaths, token?: string): void {
  if (token !== undefined && readToken(paths)?.hash !== tokenHash(token)) return;
  rmSync(paths.token, { force: true });
}

export function writePublishState(paths: StatePaths, state: Record<string, unknown>): void {
  writeJsonAtomic(paths.publishState, state);
}

export type ProtectHookRead = { kind: 'none' } | { kind: 'installed'; hook: ProtectHook } | { kind: 'corrupt'; path: string; problem: string };

/**
 * The record of land's protecting hook: none (not installed, or uninstalled), or what it was.
 * A record that does not parse is reported with its path, never taken for "not installed".
 */
export function readProtectHook(paths: StatePaths): ProtectHookRead {
  const text = readText(paths.protectHook);
  if (text === null) return { kind: 'none' };
  const parsed = parseWith(protectHookSchema, text);
  return parsed.ok ? { kind: 'installed', hook: parsed.value } : { kind: 'corrupt', path: paths.protectHook, problem: parsed.problem };
}

export function writeProtectHook(paths: StatePaths, hook: ProtectHook): void {
  writeJsonAtomic(paths.protectHook, hook);
}

/** Which executors the drain last found down; null when no drain wrote it, or it does not parse. */
export function readExecutorHealth(paths: StatePaths): ExecutorHealthFile | null {
  const text = readText(paths.executorHealth);
  if (text === null) return null;
  const parsed = parseWith(executorHealthFileSchema, text);
  return parsed.ok ? parsed.value : null;
}

export function writeExecutorHealth(paths: StatePaths, health: ExecutorHealthFile): void {
  writeJsonAtomic(paths.executorHealth, health);
}

export function clearProtectHook(paths: StatePaths): void {
  rmSync(paths.protectHook, { force: true });
}
