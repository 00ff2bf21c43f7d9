// What kind of object each of a list of ids names, with one `git cat-file --batch-check` for all
// of them: the drain asks it of the tips of the jobs it admits (lib/landing/trains/admitTips.ts),
// so a tip that is a tree, a blob or no object here fails its own job instead of every merge.
import { runGit } from './run.js';

/** One object as git found it: its type, not there, or there but unreadable (a corrupt object). */
export type ObjectAnswer = { kind: 'found'; type: string } | { kind: 'missing' } | { kind: 'unreadable'; reason: string };

/**
 * Parses `cat-file --batch-check`: one stdout line per asked name, in order (`<oid> <type> <size>`,
 * or `<name> missing` / `<name> ambiguous`). git says `missing` of an object whose header it cannot
 * unpack too, and names it on stderr (`error: unable to unpack <oid> header`): that one is unreadable.
 */
export function parseBatchCheck(names: readonly string[], stdout: string, stderr = ''): Map<string, ObjectAnswer> {
  const lines = stdout.split('\n');
  const complaints = stderr.split('\n').filter((line) => /^(fatal|error): /.test(line));
  const answers = new Map<string, ObjectAnswer>();
  names.forEach((name, i) => {
    const [oid = '', type = '', size = ''] = (lines[i] ?? '').split(' ');
    if (/^[0-9a-f]{40,64}$/.test(oid) && /^[a-z]+$/.test(type) && /^\d+$/.test(size)) {
      answers.set(name, { kind: 'found', type });
      return;
    }
    const said = complaints.find((line) => line.includes(name));
    answers.set(name, said ? { kind: 'unreadable', reason: said.replace(/^(fatal|error): /, '') } : { kind: 'missing' });
  });
  return answers;
}

/** The object each of `ids` (full object ids) names; a git that cannot run at all is a GitError. */
export async function objectTypes(cwd: string, ids: readonly string[]): Promise<Map<string, ObjectAnswer>> {
  const names = [...new Set(ids)];
  if (!names.length) return new Map();
  for (const name of names) if (!/^[0-9a-f]{4,64}$/.test(name)) throw new Error(`not an object id: ${JSON.stringify(name)}`);
  const result = await runGit(cwd, ['cat-file', '--batch-check'], { input: `${names.join('\n')}\n` });
  return parseBatchCheck(names, result.stdout, result.stderr);
}
