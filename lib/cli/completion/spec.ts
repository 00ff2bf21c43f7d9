// What a completion script must know, read from the commander program itself: every command path,
// its subcommands, its options (and which take a value), and what its positional arguments are.
// A command added to the program appears in every generated script without touching this folder.
import type { Command, Option } from 'commander';

/** What a positional argument (or an option's value) completes to. */
export type WordKind = 'ids' | 'branches' | 'shells' | 'dirs' | 'none';

export interface OptionSpec {
  /** `--title`, `-C`: every spelling of the option. */
  flags: string[];
  /** Takes a value in the next word (`--title <text>`); optional values (`[x]`) do not. */
  takesValue: boolean;
  value: WordKind;
  description: string;
}

export interface CommandSpec {
  /** Words after the program name: '' for the program itself, 'hooks install' for a subcommand. */
  path: string;
  description: string;
  subcommands: { name: string; description: string }[];
  /** The command's own options (the program's options are in `globalOptions`). */
  options: OptionSpec[];
  args: WordKind;
  /** The last positional argument repeats (`[ids...]`). */
  variadic: boolean;
}

export interface CompletionSpec {
  program: string;
  globalOptions: OptionSpec[];
  commands: CommandSpec[];
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

// Only plain words reach a script: anything else is left out rather than quoted into code.
const SAFE_NAME = /^[a-z][a-z0-9-]*$/;
const SAFE_FLAG = /^--?[A-Za-z0-9][A-Za-z0-9-]*$/;

/**
 * The argument or option-value name decides what it completes to: `<id>`, `[ids...]`, `[job]` and
 * `[jobs...]` (a job id or a branch: completed to the ids), `<branch>`, `<dir>`.
 */
export function kindOfName(name: string): WordKind {
  const bare = name.replace(/[<>[\].]/g, '');
  if (bare === 'id' || bare === 'ids' || bare === 'job' || bare === 'jobs') return 'ids';
  if (bare === 'branch' || bare === 'branches') return 'branches';
  if (bare === 'shell') return 'shells';
  if (bare === 'dir') return 'dirs';
  return 'none';
}

/** A description short enough for a completion menu: its first clause, at most 80 characters. */
function oneLine(text: string): string {
  const line = (text.split('\n')[0] ?? '').trim();
  let clause = /^(.{10,}?)(?:; | \(|: )/.exec(line)?.[1] ?? line;
  const open = clause.lastIndexOf('(');
  if (open > 0 && !clause.slice(open).includes(')')) clause = clause.slice(0, open).trimEnd();
  return clause.length > 80 ? `${clause.slice(0, 77)}...` : clause;
}

function optionSpec(option: Option): OptionSpec | null {
  const flags = [option.short, option.long].filter((flag): flag is string => typeof flag === 'string' && SAFE_FLAG.test(flag));
  if (!flags.length) return null;
  const placeholder = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] ?? '';
  return { flags, takesValue: option.required, value: option.required ? kindOfName(placeholder) : 'none', description: oneLine(option.description) };
}

function commandSpec(command: Command, path: string, globalFlags: ReadonlySet<string>): CommandSpec {
  const help = command.createHelp();
  const options = help
    .visibleOptions(command)
    .map(optionSpec)
    .filter((option): option is OptionSpec => option !== null && !option.flags.some((flag) => globalFlags.has(flag)));
  const subcommands = help
    .visibleCommands(command)
    .filter((sub) => SAFE_NAME.test(sub.name()))
    .map((sub) => ({ name: sub.name(), description: oneLine(sub.description()) }));
  const first = command.registeredArguments[0];
  const last = command.registeredArguments.at(-1);
  return {
    path,
    description: oneLine(command.description()),
    subcommands,
    options,
    args: first ? kindOfName(first.name()) : 'none',
    variadic: Boolean(last?.variadic),
  };
}

/** Walks the program: the program itself first, then every visible command, depth first. */
export function buildCompletionSpec(program: Command): CompletionSpec {
  const help = program.createHelp();
  const globalOptions = help
    .visibleOptions(program)
    .map(optionSpec)
    .filter((option): option is OptionSpec => option !== null && !option.flags.includes('--help'));
  const globalFlags = new Set(globalOptions.flatMap((option) => option.flags));
  const commands: CommandSpec[] = [];
  const visit = (command: Command, path: string) => {
    commands.push(commandSpec(command, path, globalFlags));
    for (const sub of help.visibleCommands(command)) {
      // commander's implicit `help [command]` has no subcommands of its own to walk.
      if (!SAFE_NAME.test(sub.name()) || sub.name() === 'help') continue;
      visit(sub, path ? `${path} ${sub.name()}` : sub.name());
    }
  };
  visit(program, '');
  return { program: SAFE_NAME.test(program.name()) ? program.name() : 'land', globalOptions, commands };
}
