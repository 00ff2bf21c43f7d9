import { isAbsolute, resolve } from 'node:path';
import { git } from './run.js';

/** The folder git runs hooks from (honours core.hooksPath), as an absolute path. */
export async function hooksDir(cwd: string): Promise<string> {
  const out = await git(cwd, ['rev-parse', '--path-format=absolute', '--git-path', 'hooks']);
  return isAbsolute(out) ? out : resolve(cwd, out);
}
