// What start-up speed must not cost: `land --version` answered by the tiny entry still says
// package.json's version; a command line loads only the command it names, yet every command, help
// and suggestion works as with all of them loaded; `land status` starts two git processes. No
// timing is asserted here (the benchmark measures it: npm run bench, part a).
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_MODULES, buildProgram, commandNamed } from '../../lib/cli/program.js';
import { VERSION } from '../../lib/version.js';
import { LAND_BIN, ROOT, land } from '../helpers/cli.js';
import { cleanupTempDirs, makeRepo, tempDir, type TestRepo } from '../helpers/repo.js';
import { BASIC_POLICY } from '../helpers/state.js';

const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

afterAll(() => cleanupTempDirs());

describe('land --version', () => {
  it("prints package.json's version, with -V too, and exits 0", async () => {
    expect(VERSION).toBe(PACKAGE_VERSION);
    for (const flag of ['--version', '-V']) {
      const result = await land(tempDir(), [flag]);
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({ code: 0, stdout: `${PACKAGE_VERSION}\n`, stderr: '' });
    }
  });

  it('exits 0 when its reader closed the pipe before it wrote', async () => {
    const child = spawn(process.execPath, [LAND_BIN, '--version'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // no reader left: the write fails with EPIPE
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});

describe('the command a command line names', () => {
  it('is its first argument past the root options and their values', () => {
    expect(commandNamed(['status', '--json'])).toBe('status');
    expect(commandNamed(['-C', 'status', 'show', 'x'])).toBe('show');
    expect(commandNamed(['--cwd', '/r', '--target', 'run', '--debug', 'submit'])).toBe('submit');
    expect(commandNamed(['--cwd=/r', '--debug', 'run', '--watch'])).toBe('run');
    expect(commandNamed(['--', 'status'])).toBe('status');
    expect(commandNamed(['--help'])).toBeUndefined();
    expect(commandNamed([])).toBeUndefined();
  });

  it('registers that command alone; help, an unknown name and completion scripts get all', async () => {
    const names = (args?: string[]) => buildProgram(args).then((program) => program.commands.map((command) => command.name()));
    const all = await names();
    expect([...all].sort()).toEqual(COMMAND_MODULES.flatMap((entry) => entry.names).sort());
    expect(await names(['-C', '/r', 'status', '--json'])).toEqual(['status']);
    expect(await names(['retry', 'j-1'])).toEqual(['cancel', 'retry']);
    expect(await names(['completion', '--ids', 'cancel'])).toEqual(['completion']);
    for (const args of [[], ['--help'], ['help', 'run'], ['stauts'], ['completion', 'bash']]) expect(await names(args)).toEqual(all);
  });
});

describe('the CLI with one command loaded', () => {
  let repo: TestRepo;
  beforeAll(() => {
    repo = makeRepo({ policy: BASIC_POLICY });
  });

  it('land --help lists every command; a command help shows the root options; a typo is answered', async () => {
    const help = await land(repo.dir, ['--help']);
    expect(help.code).toBe(0);
    for (const name of COMMAND_MODULES.flatMap((entry) => entry.names)) expect(help.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    const statusHelp = await land(repo.dir, ['-C', repo.dir, 'status', '--help']);
    expect(statusHelp.code).toBe(0);
    expect(statusHelp.stdout).toContain('Usage: land status [options]');
    expect(statusHelp.stdout).toContain('--target <branch>');
    const typo = await land(repo.dir, ['stauts']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean one of stats, status?)');
  });

  it('land status starts two git processes: land.target, then the tip and policy in one (the repository is found from its files)', async () => {
    // A git on PATH that logs its arguments, then runs the real one.
    const shim = tempDir('land-git-shim-');
    const log = join(shim, 'calls.log');
    writeFileSync(join(shim, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nPATH='${process.env.PATH ?? ''}' exec git "$@"\n`);
    chmodSync(join(shim, 'git'), 0o755);
    const result = await land(repo.dir, ['status', '--json'], { env: { PATH: `${shim}${delimiter}${process.env.PATH ?? ''}` } });
    expect(result.code).toBe(0);
    expect(result.json().window.max).toBe(8);
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    expect(calls).toEqual(['config --get land.target', 'cat-file --batch']);
  });
});
