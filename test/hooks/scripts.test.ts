// The hook texts, run directly with dash (POSIX sh): quoting of embedded values, the token rule,
// and the pre-receive equivalent's push-option token.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isLandHook, preReceiveScript, prePushScript, referenceTransactionScript, shQuote } from '../../lib/hooks/scripts.js';
import { formatTokenRecord, processStart, tokenHash } from '../../lib/store/landingToken.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';

afterAll(() => cleanupTempDirs());

const OLD = '1'.repeat(40);
const NEW = '2'.repeat(40);

function runScript(text: string, args: string[], input: string, env: Record<string, string> = {}) {
  const dir = tempDir();
  const path = join(dir, 'hook');
  writeFileSync(path, text);
  chmodSync(path, 0o755);
  const { LAND_TOKEN: _drop, ...rest } = process.env;
  // cwd outside any repository: `git rev-parse` finds no current value for the target.
  return spawnSync('dash', [path, ...args], { cwd: dir, input, encoding: 'utf8', env: { ...rest, GIT_CEILING_DIRECTORIES: dir, ...env } });
}

/** A token file as a drainer with this pid writes it for `token`. */
function armedBy(pid: number, token: string): string {
  return formatTokenRecord({ hash: tokenHash(token), pid, start: processStart(pid) });
}

/** A PATH folder holding only these tools (symlinks to where they are now). */
function toolsDir(tools: string[]): string {
  const dir = tempDir();
  for (const tool of tools) {
    const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    if (found) symlinkSync(found, join(dir, tool));
  }
  return dir;
}

describe('shQuote', () => {
  it('single-quotes, escaping embedded quotes', () => {
    expect(shQuote("it's")).toBe(`'it'\\''s'`);
    expect(execFileSync('dash', ['-c', `printf %s ${shQuote(`a'b "$HOME" \`x\` \\ ;`)}`], { encoding: 'utf8' })).toBe(`a'b "$HOME" \`x\` \\ ;`);
  });
});

describe('reference-transaction script', () => {
  const dir = tempDir();
  const tokenFile = join(dir, "odd $dir 'quoted'", 'token');
  const target = "release'1";
  const script = referenceTransactionScript({ target, tokenFile });

  it('parses as POSIX sh and carries the marker', () => {
    expect(spawnSync('dash', ['-n'], { input: script }).status).toBe(0);
    expect(isLandHook(script)).toBe(true);
    expect(isLandHook('#!/bin/sh\necho mine\n')).toBe(false);
  });

  it('refuses an update of the target without the token, naming land submit', () => {
    const result = runScript(script, ['prepared'], `${OLD} ${NEW} refs/heads/${target}\n`);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(`land: ${target} is protected: use \`land submit\` to land changes (refusing update of refs/heads/${target})\n`);
  });

  it('lets other refs, other states and the token holder through', () => {
    expect(runScript(script, ['prepared'], `${OLD} ${NEW} refs/heads/other\n${OLD} ${NEW} HEAD\n`).status).toBe(0);
    expect(runScript(script, ['committed'], `${OLD} ${NEW} refs/heads/${target}\n`).status).toBe(0);
    expect(runScript(script, ['aborted'], `${OLD} ${NEW} refs/heads/${target}\n`).status).toBe(0);
    execFileSync('mkdir', ['-p', join(tokenFile, '..')]);
    writeFileSync(tokenFile, armedBy(process.pid, 'secret-token'));
    const line = `${OLD} ${NEW} refs/heads/${target}\n`;
    expect(runScript(script, ['prepared'], line, { LAND_TOKEN: 'secret-token' }).status).toBe(0);
    expect(runScript(script, ['prepared'], line, { LAND_TOKEN: 'wrong' }).status).toBe(1);
    expect(runScript(script, ['prepared'], line, { LAND_TOKEN: tokenHash('secret-token') }).status).toBe(1);
    expect(runScript(script, ['prepared'], line, { LAND_TOKEN: '' }).status).toBe(1);
    writeFileSync(tokenFile, '');
    expect(runScript(script, ['prepared'], line, { LAND_TOKEN: '' }).status).toBe(1);
    // The token file of an older land (the token itself, in clear): refused.
    writeFileSync(tokenFile, 'secret-token\n');
    expect(runScript(script, ['prepared'], line, { LAND_TOKEN: 'secret-token' }).status).toBe(1);
  });

  it('refuses the token of a drainer that is gone, or whose pid now names another process', () => {
    execFileSync('mkdir', ['-p', join(tokenFile, '..')]);
    const line = `${OLD} ${NEW} refs/heads/${target}\n`;
    const dead = spawnSync('true').pid as number;
    writeFileSync(tokenFile, armedBy(dead, 'secret-token'));
    expect(runScript(script, ['prepared'], line, { LAND_TOKEN: 'secret-token' }).status).toBe(1);
    // A live pid with another start time: a reused pid.
    const start = processStart(process.pid);
    writeFileSync(tokenFile, formatTokenRecord({ hash: tokenHash('secret-token'), pid: process.pid, start: String(Number(start) + 1) }));
    expect(runScript(script, ['prepared'], line, { LAND_TOKEN: 'secret-token' }).status).toBe(1);
    writeFileSync(tokenFile, armedBy(process.pid, 'secret-token'));
    expect(runScript(script, ['prepared'], line, { LAND_TOKEN: 'secret-token' }).status).toBe(0);
  });

  it('checks the hash with shasum or openssl when sha256sum is missing, and refuses clearly with none', () => {
    execFileSync('mkdir', ['-p', join(tokenFile, '..')]);
    writeFileSync(tokenFile, armedBy(process.pid, 'secret-token'));
    const line = `${OLD} ${NEW} refs/heads/${target}\n`;
    const available = ['shasum', 'openssl'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0);
    for (const tool of available) {
      const path = toolsDir(['dash', 'cat', 'cut', 'sed', 'git', 'ps', 'grep', 'perl', tool]);
      expect(runScript(script, ['prepared'], line, { LAND_TOKEN: 'secret-token', PATH: path }).status, tool).toBe(0);
      expect(runScript(script, ['prepared'], line, { LAND_TOKEN: 'wrong', PATH: path }).status, tool).toBe(1);
    }
    const none = runScript(script, ['prepared'], line, { LAND_TOKEN: 'secret-token', PATH: toolsDir(['dash', 'cat', 'cut', 'sed', 'git', 'ps', 'grep']) });
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('none of sha256sum, shasum or openssl is installed');
  });

  it('allows a deletion of a target that does not exist (a no-op)', () => {
    expect(runScript(script, ['prepared'], `${'0'.repeat(40)} ${'0'.repeat(40)} refs/heads/${target}\n`).status).toBe(0);
  });
});

describe('pre-receive script', () => {
  const dir = tempDir();
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, armedBy(process.pid, 'tok'));
  const script = preReceiveScript({ target: 'main', tokenFile });
  const line = `${OLD} ${NEW} refs/heads/main\n`;

  it('parses as POSIX sh and refuses a push of the target without the token', () => {
    expect(spawnSync('dash', ['-n'], { input: script }).status).toBe(0);
    const refused = runScript(script, [], line);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('land: main is protected: use `land submit`');
    expect(runScript(script, [], `${OLD} ${NEW} refs/heads/feature\n`).status).toBe(0);
  });

  it('accepts the token from the environment or from a push option', () => {
    expect(runScript(script, [], line, { LAND_TOKEN: 'tok' }).status).toBe(0);
    expect(runScript(script, [], line, { GIT_PUSH_OPTION_COUNT: '2', GIT_PUSH_OPTION_0: 'ci.skip', GIT_PUSH_OPTION_1: 'land-token=tok' }).status).toBe(0);
    expect(runScript(script, [], line, { GIT_PUSH_OPTION_COUNT: '1', GIT_PUSH_OPTION_0: 'land-token=nope' }).status).toBe(1);
  });
});

describe('pre-push script', () => {
  it('embeds node and the land entry quoted, and skips the drainer (a token the token file vouches for) only', () => {
    const tokenFile = join(tempDir(), 'token');
    writeFileSync(tokenFile, armedBy(process.pid, 'drainer-token'));
    const script = prePushScript({ node: '/opt/my node/bin/node', landEntry: "/srv/land's/dist/bin/land.js", tokenFile });
    expect(spawnSync('dash', ['-n'], { input: script }).status).toBe(0);
    expect(script).toContain(`'/opt/my node/bin/node' '/srv/land'\\''s/dist/bin/land.js' prove`);
    expect(runScript(script, ['origin', 'url'], '', { LAND_TOKEN: 'drainer-token' }).status).toBe(0);
    const guessed = runScript(script, ['origin', 'url'], '', { LAND_TOKEN: 'x' });
    expect(guessed.status).toBe(1);
    expect(guessed.stderr).toContain('land prove failed');
    const failing = runScript(script, ['origin', 'url'], '');
    expect(failing.status).toBe(1);
    expect(failing.stderr).toContain('land prove failed');
  });
});
