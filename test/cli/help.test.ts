// Every `land ... --help` ends with an example and its docs page. The program's tree is walked, so a
// command registered later without an entry in lib/cli/helpExamples.ts fails here.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  HELP_EXAMPLES,
  PROGRAM_EXAMPLES,
  allCommands,
  applyHelpExamples,
  commandPath,
  commandsWithoutExamples,
  helpExamplesFor,
} from '../../lib/cli/helpExamples.js';
import { COMMAND_GROUPS, COMMAND_MODULES, buildProgram } from '../../lib/cli/program.js';
import { ROOT, land } from '../helpers/cli.js';
import { anchorsOf } from '../helpers/docsLinks.js';

/** The help a command prints for --help, with the text added after it. */
function helpOf(command: Command): string {
  let out = '';
  command.configureOutput({ writeOut: (text) => (out += text), writeErr: (text) => (out += text) });
  command.outputHelp();
  return out;
}

/** Why a docs link does not resolve (null when it does): the file exists, the anchor is a heading. */
function brokenLink(link: string): string | null {
  const [file, anchor] = link.split('#');
  const path = join(ROOT, file!);
  if (!file!.startsWith('docs/') || !existsSync(path)) return `${link}: no such docs page`;
  if (anchor === undefined) return null;
  return anchorsOf(path).includes(anchor) ? null : `${link}: no heading with that anchor in ${file}`;
}

// Every command registered: buildProgram() without a command line loads each command's module.
const program = await buildProgram();

describe('help examples', () => {
  const commands = allCommands(program);

  it('walks every registered command, subcommands included', () => {
    const paths = commands.map(commandPath);
    for (const path of ['submit', 'run', 'config schema', 'hooks install', 'hooks pre-receive', 'ledger show']) expect(paths).toContain(path);
    expect(paths).not.toContain('help');
  });

  it('has examples for every registered command', () => {
    expect(commandsWithoutExamples(program)).toEqual([]);
  });

  it('notices a command registered without examples', async () => {
    const extended = await buildProgram();
    extended.command('brand-new').description('a command nobody wrote examples for');
    extended.commands.find((command) => command.name() === 'hooks')!.command('brand-new-too');
    expect(commandsWithoutExamples(extended)).toEqual(['hooks brand-new-too', 'brand-new']);
  });

  it("writes each example as `land <the command's path> ...` with what it does", () => {
    for (const command of commands) {
      const path = commandPath(command);
      for (const [line, says] of helpExamplesFor(path)!.examples) {
        expect(line === `land ${path}` || line.startsWith(`land ${path} `), `${path}: ${line}`).toBe(true);
        expect(says.trim(), `${path}: ${line}`).not.toBe('');
      }
    }
    for (const [line] of PROGRAM_EXAMPLES.examples) expect(line.startsWith('land ')).toBe(true);
  });

  it('points every registered command to a docs page and heading that exist', () => {
    const broken = commands.map((command) => brokenLink(helpExamplesFor(commandPath(command))!.docs)).filter((problem) => problem !== null);
    expect(broken).toEqual([]);
    expect(brokenLink(PROGRAM_EXAMPLES.docs)).toBeNull();
    // The check itself: a wrong anchor and a missing page are caught.
    expect(brokenLink('docs/commands.md#land-submit-branch')).toMatch(/no heading/);
    expect(brokenLink('docs/nowhere.md')).toMatch(/no such docs page/);
  });

  it('lists the commands of `land --help` under their groups, in the order of COMMAND_GROUPS', () => {
    const help = helpOf(program);
    const headings = Object.values(COMMAND_GROUPS).map((heading) => ({ heading, at: help.indexOf(`\n${heading}\n`) }));
    expect(headings.filter(({ at }) => at < 0)).toEqual([]);
    expect(headings.map(({ at }) => at)).toEqual(headings.map(({ at }) => at).sort((a, b) => a - b));
    const groupAt = (line: number) => headings.filter(({ at }) => at < line).at(-1)?.heading;
    for (const entry of COMMAND_MODULES) {
      for (const name of entry.names) expect(groupAt(help.search(new RegExp(`^  ${name}\\b`, 'm'))), name).toBe(COMMAND_GROUPS[entry.group]);
    }
    expect(groupAt(help.search(/^ {2}help \[command\]/m))).toBe(COMMAND_GROUPS.setup);
    expect(help).not.toContain('\nCommands:\n');
  });

  it("ends each command's --help with its examples, then its docs page", () => {
    for (const command of commands) {
      const path = commandPath(command);
      const entry = helpExamplesFor(path)!;
      const help = helpOf(command);
      const lines = help.trimEnd().split('\n');
      expect(lines.at(-1), path).toBe(`Docs: ${join(ROOT, entry.docs)}`);
      const examples = help.slice(help.lastIndexOf('Examples:'));
      for (const [line] of entry.examples) expect(examples, path).toContain(`\n  ${line}\n`);
    }
  });

  it('names the argument of the commands that take a job id or a branch [job] ([jobs...] for retry)', () => {
    const usage = (path: string) => helpOf(commands.find((command) => commandPath(command) === path)!).split('\n')[0];
    for (const path of ['show', 'cancel', 'why', 'log', 'repro'])
      expect(usage(path), path).toMatch(new RegExp(`^Usage: land ${path} \\[options\\] \\[job\\]$`));
    expect(usage('retry')).toBe('Usage: land retry [options] [jobs...]');
  });

  it('leaves alone map entries for commands this build does not have, and commands without an entry', () => {
    const small = new Command('land');
    small.command('submit').description('queue');
    small.command('unlisted').description('no entry');
    expect(() => applyHelpExamples(small, 'notes')).not.toThrow();
    expect(
      helpOf(small.commands[0]!)
        .trimEnd()
        .endsWith(`Docs: ${join(ROOT, HELP_EXAMPLES.submit!.docs)}`),
    ).toBe(true);
    expect(helpOf(small.commands[1]!)).not.toContain('Examples:');
    // A command named like an Object property is not mistaken for an entry.
    expect(helpExamplesFor('constructor')).toBeUndefined();
  });
});

describe('land --help (the built CLI)', () => {
  it('ends with the examples, the exit codes (10: target red) and the docs', async () => {
    const result = await land(ROOT, ['--help']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(`Docs: ${join(ROOT, 'docs/README.md')}`);
    expect(result.stdout).toContain('Examples:\n');
    expect(result.stdout).toMatch(/Exit codes: 0 ok/);
    expect(result.stdout).toMatch(/10 target red: the target itself fails its gates/);
    expect(result.stdout).toMatch(/130 interrupted/);
    expect(result.stdout.indexOf('Examples:')).toBeLessThan(result.stdout.indexOf('Exit codes:'));
    // land batch's own exit codes are in its help, not in the queue's.
    expect(result.stdout).not.toContain('no ledger line');
    const batch = await land(ROOT, ['batch', '--help']);
    expect(batch.stdout).toContain("\nExit codes (land batch's own): 2 provider refused");
    expect(batch.stdout.indexOf('Examples:')).toBeLessThan(batch.stdout.indexOf('Exit codes'));
  });

  it('ends `land submit --help` and `land hooks install --help` with an example and the docs page', async () => {
    const submit = await land(ROOT, ['submit', '--help']);
    expect(submit.code).toBe(0);
    expect(submit.stdout).toContain('\n  land submit feature/login --wait');
    expect(submit.stdout.trimEnd().split('\n').at(-1)).toBe(`Docs: ${join(ROOT, 'docs/commands.md#land-submit-branches')}`);
    expect(submit.stdout).not.toContain('Exit codes:');

    const install = await land(ROOT, ['hooks', 'install', '--help']);
    expect(install.code).toBe(0);
    expect(install.stdout).toContain('\n  land hooks install --pre-push\n');
    expect(install.stdout.trimEnd().split('\n').at(-1)).toBe(`Docs: ${join(ROOT, 'docs/protect.md')}`);
  });
});
