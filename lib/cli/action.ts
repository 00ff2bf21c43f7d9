import type { Command } from 'commander';
import { CommandContext, type GlobalOptions } from './context.js';

/**
 * Wraps a command's body: builds the context from the global options plus the command's own
 * (outside a git repository the command stops there, unless it says it runs anywhere), and lets
 * errors travel to the entry point, which alone decides exit codes.
 */
export function action<O extends object>(
  body: (ctx: CommandContext, options: O, args: string[]) => Promise<void | number>,
  where: { outsideRepository?: boolean } = {},
): (...args: unknown[]) => Promise<void> {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const options = command.optsWithGlobals() as O & GlobalOptions;
    const positional = args
      .slice(0, -2)
      .flatMap((value) => (Array.isArray(value) ? value : [value])) // variadic arguments arrive as one array
      .filter((value): value is string => typeof value === 'string');
    const ctx = await CommandContext.open(options, where);
    const code = await body(ctx, options, positional);
    if (typeof code === 'number' && code !== 0) process.exitCode = code;
  };
}
