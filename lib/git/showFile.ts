import { runGit } from './run.js';

/** The content of `path` at commit `rev`, or null when the file is not there. */
export async function showFile(cwd: string, rev: string, path: string): Promise<string | null> {
  const result = await runGit(cwd, ['cat-file', 'blob', `${rev}:${path}`], { okCodes: [128] });
  return result.code === 0 ? result.stdout : null;
}
