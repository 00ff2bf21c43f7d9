import type { Command } from 'commander';
import { LandError, isLandError } from '../../errors.js';
import { listActiveJobsSync, recentFinishedJobs } from '../../queue/index.js';
import { action } from '../action.js';
import { bashScript } from '../completion/bash.js';
import { fishScript } from '../completion/fish.js';
import { completionIds } from '../completion/ids.js';
import { buildCompletionSpec, SHELLS, type CompletionSpec, type Shell } from '../completion/spec.js';
import { zshScript } from '../completion/zsh.js';

const RENDER: Record<Shell, (spec: CompletionSpec) => string> = { bash: bashScript, zsh: zshScript, fish: fishScript };

const isShell = (name: string): name is Shell => (SHELLS as readonly string[]).includes(name);

/** Registered with the program it completes: the script is generated from that program's commands. */
export function registerCompletion(program: Command): void {
  program
    .command('completion')
    .argument('[shell]', `the shell: ${SHELLS.join(', ')}`)
    .description('print a completion script for bash, zsh or fish (commands, options, job ids)')
    .option('--ids [command]', 'print job ids one per line, those the command acts on (used by the scripts)')
    .option('--json', 'print { shell, script }; with --ids { ids }; with neither, the commands and options the scripts know')
    .action(
      action<{ ids?: string | boolean; json?: boolean }>(
        async (ctx, opts, args) => {
          const shell = args[0];
          if (opts.ids !== undefined) {
            if (shell !== undefined) throw new LandError('usage', '--ids prints job ids; it takes no shell');
            // Outside a repository there are no jobs to offer: an empty list, not an error at Tab time.
            const store = await ctx.store().catch((error: unknown) => {
              if (isLandError(error, 'usage')) return null;
              throw error;
            });
            // The active jobs and the newest finished ones (the index's recent list), never every record.
            const jobs = store ? [...listActiveJobsSync(store).jobs, ...recentFinishedJobs(store)] : [];
            const ids = completionIds(jobs, typeof opts.ids === 'string' ? opts.ids : '');
            if (ctx.out.json) ctx.out.emit({ ids });
            else if (ids.length) process.stdout.write(`${ids.join('\n')}\n`);
            return;
          }
          if (shell === undefined && ctx.out.json) {
            ctx.out.emit(buildCompletionSpec(program));
            return;
          }
          if (shell === undefined) throw new LandError('usage', `name a shell: ${SHELLS.join(', ')}`);
          if (!isShell(shell)) throw new LandError('usage', `unknown shell ${JSON.stringify(shell)}: expected ${SHELLS.join(', ')}`);
          const script = RENDER[shell](buildCompletionSpec(program));
          if (ctx.out.json) ctx.out.emit({ shell, script });
          else process.stdout.write(script);
        },
        { outsideRepository: true },
      ), // the script is the same everywhere; it is installed once
    );
}
