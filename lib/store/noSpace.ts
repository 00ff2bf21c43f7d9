// A full disk (ENOSPC) or an exhausted quota (EDQUOT) while writing the state folder: one clear
// line naming what could not be written and where, exit 11 `no_space` (docs/exit-codes.md). The
// writers (atomic.ts, jsonl.ts) have already removed their temp file, so nothing is half-written.
import { basename, dirname } from 'node:path';
import { LandError } from '../errors.js';

const NO_SPACE_CODES = ['ENOSPC', 'EDQUOT'];

export function isNoSpace(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && NO_SPACE_CODES.includes((error as NodeJS.ErrnoException).code ?? '');
}

/** What a state-folder path holds, in words: "job record j-1", "the journal", "a verdict"... */
export function describeStateFile(path: string): string {
  const name = basename(path);
  const folder = basename(dirname(path));
  if (folder === 'jobs' && name.endsWith('.json')) return `job record ${name.slice(0, -'.json'.length)}`;
  const named: Record<string, string> = {
    'journal.jsonl': 'the journal',
    'metrics.jsonl': 'the metrics file',
    'window.json': 'the window file',
    'drain-holder.json': 'the drain-holder file',
    'publish.json': 'the publish record',
    token: 'the landing token file',
  };
  if (named[name]) return named[name] as string;
  const folders: Record<string, string> = {
    verdicts: 'a verdict',
    proofs: 'a proof',
    tips: 'a proof',
    'gate-passes': 'a gate-pass record',
    logs: 'a gate log',
    locks: 'a lock',
  };
  return folders[folder] ?? name;
}

function reasonOf(error: NodeJS.ErrnoException): string {
  return error.code === 'EDQUOT' ? 'disk quota exceeded' : 'no space left on device';
}

/** A no_space LandError for a failed write of `path`. */
export function noSpaceError(error: NodeJS.ErrnoException, path: string): LandError {
  return new LandError('no_space', `could not write ${describeStateFile(path)} (${path}): ${reasonOf(error)} (${error.code})`, {
    hint: 'free space on that file system, then run the command again; nothing was half-written',
    cause: error,
  });
}

/** `error` as a no_space LandError when it is ENOSPC or EDQUOT; else unchanged. */
export function asNoSpace(error: unknown, path: string): unknown {
  return isNoSpace(error) ? noSpaceError(error, path) : error;
}
