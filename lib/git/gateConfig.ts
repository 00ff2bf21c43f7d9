// The repository configuration a gate's git reads in the sandbox (docs/sandbox.md): only what git
// needs to read the repository (its format, extensions, how the checkout's files are compared),
// never what a drainer's checkout keeps besides: remote URLs with user info, `http.extraheader`
// tokens a CI checkout persists, credential helpers, includes, hooks, fsmonitor.
import { join } from 'node:path';
import { git } from './run.js';

/** The settings a gate's git keeps: the repository's format and the checkout's file handling. */
const KEPT =
  /^(core\.(repositoryformatversion|bare|filemode|symlinks|ignorecase|precomposeunicode|logallrefupdates|autocrlf|eol|safecrlf|quotepath)|extensions\.[a-z0-9]+)$/;

/** Pure: `git config --null --list` output (`key\nvalue\0`...) as a config file of the kept settings. */
export function keptConfigText(list: string): string {
  const sections = new Map<string, string[]>();
  for (const entry of list.split('\0')) {
    const newline = entry.indexOf('\n');
    if (newline < 0) continue;
    const key = entry.slice(0, newline).toLowerCase();
    const value = entry.slice(newline + 1);
    if (!KEPT.test(key) || /[\n\r]/.test(value)) continue;
    const dot = key.indexOf('.');
    const [section, name] = [key.slice(0, dot), key.slice(dot + 1)];
    sections.set(section, [...(sections.get(section) ?? []), `\t${name} = "${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`]);
  }
  return [...sections].map(([section, lines]) => `[${section}]\n${lines.join('\n')}\n`).join('');
}

/** The kept settings of `<gitDir>/config` (includes not followed), as a config file's text. */
export async function gateConfigText(gitDir: string): Promise<string> {
  return keptConfigText(await git(gitDir, ['config', '--file', join(gitDir, 'config'), '--no-includes', '--null', '--list']));
}
