import { LandError } from '../errors.js';

const JOB_NAME = /^[A-Za-z0-9._-]+$/;

/** A job name becomes a file name (`<ledger dir>/<name>.jsonl`), so it is checked before any use. */
export function assertJobName(name: string | undefined): string {
  if (name === undefined || name === '') throw new LandError('usage', '--job <name> is required');
  if (!JOB_NAME.test(name) || name.length > 100 || name === '.' || name === '..') {
    throw new LandError('usage', `invalid job name ${JSON.stringify(name)}: expected letters, digits, ".", "_" or "-"`);
  }
  return name;
}
