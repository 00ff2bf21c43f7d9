// What `land init` proposes for the policy's `trusted` globs (docs/policy.md#trusted): the scripts
// the proposed gates run (a word of a gate command that names a file of the repository, such as
// `sh gate.sh` or `./ci/test.sh`) and the common CI folders that exist. Pure: the caller says which
// paths exist.

/** Folders that commonly hold the scripts gates run; proposed as `<folder>/**` when they exist. */
export const CI_FOLDERS = ['ci', '.ci', 'scripts/ci', 'tools/ci'] as const;

const SCRIPT = /\.(sh|bash|zsh|py|js|mjs|cjs|ts|rb|pl|ps1|mk)$/;

/** The words of a gate command that may name a repository file (no option, variable, URL or glob). */
function candidateWords(run: string | readonly string[]): string[] {
  const words = typeof run === 'string' ? run.split(/[\s;&|()<>'"`]+/) : [...run];
  return words
    .map((word) => word.replace(/^\.\//, ''))
    .filter((word) => word !== '' && !/^[-$~/]/.test(word) && !/[*?[\]{}=:]/.test(word) && !word.split('/').includes('..'))
    .filter((word) => word.includes('/') || SCRIPT.test(word));
}

/**
 * The globs to propose: each existing file a gate command names (in command order, once), then
 * `<folder>/**` for each existing CI folder; a file already under a proposed folder is left out.
 */
export function suggestTrusted(runs: readonly (string | readonly string[])[], exists: (path: string, kind: 'file' | 'folder') => boolean): string[] {
  const folders = CI_FOLDERS.filter((folder) => exists(folder, 'folder'));
  const files: string[] = [];
  for (const run of runs) {
    for (const word of candidateWords(run)) {
      if (files.includes(word) || folders.some((folder) => word.startsWith(`${folder}/`))) continue;
      if (exists(word, 'file')) files.push(word);
    }
  }
  return [...files, ...folders.map((folder) => `${folder}/**`)];
}
