// `land completion`: the scripts are driven the way each shell drives them, in a real shell
// subprocess, against a test repository whose job ids and branch names they must offer.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashScript } from '../../../lib/cli/completion/bash.js';
import { buildCompletionSpec } from '../../../lib/cli/completion/spec.js';
import { buildProgram } from '../../../lib/cli/program.js';
import { applyChanges } from '../../../lib/queue/index.js';
import { openStore } from '../../../lib/store/index.js';
import { LAND_BIN, land } from '../../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir, type TestRepo } from '../../helpers/repo.js';
import { BASIC_POLICY, errorLines } from '../../helpers/state.js';

afterAll(cleanupTempDirs);

const WEIRD = 'we$(touch${IFS}PWNED)ird';
const installed = (shell: string) => !spawnSync(shell, ['-c', 'true']).error;

// Splits each line at spaces into COMP_WORDS (a trailing space starts an empty word), calls the
// completion function as bash would, and prints COMPREPLY joined by '|', one line per input.
const BASH_DRIVER = `
source "$1"; shift
for line in "$@"; do
  read -ra COMP_WORDS <<< "$line"
  [[ $line == *' ' ]] && COMP_WORDS+=('')
  COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )) COMP_LINE=$line COMP_POINT=\${#line}
  COMPREPLY=()
  _land land "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
  (IFS='|'; printf '%s\\n' "\${COMPREPLY[*]}")
done
`;

// zsh's completion builtins only run inside a completion widget: stand-ins print what they get.
const ZSH_DRIVER = `
compdef() { :; }
compset() { :; }
_files() { print -r -- "files"; }
_describe() { local name=$argv[-1]; local -a items; items=("\${(@P)name}"); print -r -- "\${(j:|:)\${(@)items%%:*}}"; }
compadd() { [[ $1 == -- ]] && shift; print -r -- "\${(j:|:)@}"; }
source "$1"; shift
for line in "$@"; do
  words=(\${(z)line}); [[ $line == *' ' ]] && words+=('')
  CURRENT=\${#words}
  _land || print -r -- ''
done
`;

describe('land completion', () => {
  let repo: TestRepo;
  let bin: string;
  let env: NodeJS.ProcessEnv;
  let queuedId: string;
  let failedId: string;

  beforeAll(async () => {
    repo = makeRepo({ policy: BASIC_POLICY });
    for (const branch of ['alpha', 'beta', WEIRD]) repo.branch(branch, { 'f.txt': `${branch}\n` });
    const submitted = await land(repo.dir, ['submit', 'alpha', 'beta', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    [queuedId, failedId] = submitted.lines().map((line) => line.job.id as string) as [string, string];
    const store = await openStore(repo.dir);
    await applyChanges(store, [{ id: failedId, to: 'in_progress', event: 'train_started' }]);
    await applyChanges(store, [{ id: failedId, to: 'failed', event: 'failed', patch: { reason: 'gate' } }]);
    // `land` on PATH is the built CLI, as the scripts call it by name.
    bin = tempDir('land-bin-');
    writeFileSync(join(bin, 'land'), `#!/bin/sh\nexec '${process.execPath}' '${LAND_BIN}' "$@"\n`);
    chmodSync(join(bin, 'land'), 0o755);
    env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
  });

  function drive(shell: 'bash' | 'zsh', script: string, lines: string[], cwd = repo.dir): string[] {
    const dir = tempDir('land-completion-');
    writeFileSync(join(dir, 'script'), script);
    writeFileSync(join(dir, 'driver'), shell === 'bash' ? BASH_DRIVER : ZSH_DRIVER);
    const out = execFileSync(shell, [join(dir, 'driver'), join(dir, 'script'), ...lines], { cwd, env, encoding: 'utf8' });
    return out.split('\n').slice(0, lines.length);
  }

  it('bash: completes commands, options, subcommands, the job ids each command acts on, and branches', async () => {
    const result = await land(repo.dir, ['completion', 'bash']);
    expect(result.code, result.stderr).toBe(0);
    const elsewhere = tempDir('land-elsewhere-');
    const [su, retry, cancel, show, option, hooks, shells, submit, title] = drive('bash', result.stdout, [
      'land su',
      'land retry ',
      'land cancel ',
      'land show ',
      'land retry --a',
      'land hooks ',
      'land completion ',
      'land submit ',
      'land submit --title ',
    ]);
    expect(su).toBe('submit');
    expect(retry).toBe(failedId);
    expect(cancel).toBe(queuedId);
    expect(show).toBe(`${queuedId}|${failedId}`);
    expect(option).toBe('--all-failed');
    expect(hooks).toBe('install|uninstall|pre-receive|help');
    expect(shells).toBe('bash|zsh|fish');
    // Branch names are offered quoted for the command line and never evaluated.
    expect(submit).toBe(`alpha|beta|main|${String.raw`we\$\(touch\$\{IFS\}PWNED\)ird`}`);
    expect(title).toBe('');
    expect(existsSync(join(repo.dir, 'PWNED'))).toBe(false);
    // -C on the command line points the id lookup at that repository.
    expect(drive('bash', result.stdout, [`land -C ${repo.dir} cancel `], elsewhere)).toEqual([queuedId]);
  });

  it('bash: a command added to the program is completed without any change to the completion code', async () => {
    const program = await buildProgram();
    program.command('frobnicate').argument('<id>', 'job id').option('--level <n>', 'how much');
    const [command, ids, option] = drive('bash', bashScript(buildCompletionSpec(program)), ['land frob', 'land frobnicate ', 'land frobnicate --l']);
    expect(command).toBe('frobnicate');
    expect(ids).toBe(`${queuedId}|${failedId}`);
    expect(option).toBe('--level');
  });

  it('prints the ids a command acts on with --ids; an unknown or missing shell is a usage error', async () => {
    const [ids, unknown, missing] = await Promise.all([
      land(repo.dir, ['completion', '--ids', 'retry']),
      land(repo.dir, ['completion', 'powershell']),
      land(repo.dir, ['completion']),
    ]);
    expect(ids.stdout).toBe(`${failedId}\n`);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.trim().split('\n')).toEqual(['land: unknown shell "powershell": expected bash, zsh, fish']);
    expect(missing.code).toBe(2);
    expect(errorLines(missing.stderr)).toEqual(['land: name a shell: bash, zsh, fish']);
  });

  it('zsh: a #compdef script that parses and offers the same words', async () => {
    const result = await land(repo.dir, ['completion', 'zsh']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.startsWith('#compdef land\n')).toBe(true);
    expect(result.stdout).toContain('compdef _land land');
    for (const command of ['submit', 'retry', 'completion', 'hooks']) expect(result.stdout).toContain(`'${command}:`);
    if (!installed('zsh')) return; // the content checks above are all a machine without zsh can do
    const dir = tempDir('land-zsh-');
    writeFileSync(join(dir, '_land'), result.stdout);
    expect(spawnSync('zsh', ['-n', join(dir, '_land')]).status).toBe(0);
    const [su, retry, cancel, submit] = drive('zsh', result.stdout, ['land su', 'land retry ', 'land cancel ', 'land submit ']);
    expect(su?.split('|')).toContain('submit');
    expect(retry).toBe(failedId);
    expect(cancel).toBe(queuedId);
    expect(submit).toBe(`alpha|beta|main|${WEIRD}`); // handed to compadd as data, which quotes it
    expect(existsSync(join(repo.dir, 'PWNED'))).toBe(false);
  });

  it('fish: complete rules that parse and offer the same words', async () => {
    const result = await land(repo.dir, ['completion', 'fish']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(String.raw`complete -c land -n '__land_at \'\' 0' -a 'submit'`);
    expect(result.stdout).toContain(String.raw`complete -c land -n '__land_at \'retry\' any' -a '(__land_ids \'retry\')'`);
    if (!installed('fish')) return; // the content checks above are all a machine without fish can do
    const dir = tempDir('land-fish-');
    const file = join(dir, 'land.fish');
    writeFileSync(file, result.stdout);
    expect(spawnSync('fish', ['-n', file]).status).toBe(0);
    const complete = (line: string) =>
      execFileSync('fish', ['-c', `source ${file}; complete -C '${line}'`], { cwd: repo.dir, env, encoding: 'utf8' })
        .split('\n')
        .filter(Boolean)
        .map((entry) => entry.split('\t')[0]);
    expect(complete('land su')).toEqual(['submit']);
    expect(complete('land retry ')).toEqual([failedId]);
    expect(complete('land submit ')).toEqual(['alpha', 'beta', 'main', WEIRD]);
    expect(existsSync(join(repo.dir, 'PWNED'))).toBe(false);
  });
});
