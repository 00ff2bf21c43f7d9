import type { Command } from 'commander';
import { installHooks, uninstallHooks } from '../../hooks/install.js';
import { LandError } from '../../errors.js';
import { preReceiveScript, queuePreReceiveScript } from '../../hooks/scripts.js';
import { landEntry } from '../../landEntry.js';
import { action } from '../action.js';

export function registerHooks(program: Command): void {
  const hooks = program.command('hooks').description('protect the target: only a drainer holding the landing token may update it');
  hooks
    .command('install')
    .description('install a reference-transaction hook that refuses updates of the target not made by the drainer')
    .option('--pre-push', 'also install a pre-push hook that runs `land prove` and fails the push when it fails')
    .option('--force', 'replace existing hooks that land did not write')
    .option('--json', 'print { hooksDir, target, tokenFile, installed } as JSON')
    .action(
      action<{ prePush?: boolean; force?: boolean; json?: boolean }>(async (ctx, opts) => {
        const store = await ctx.store();
        const target = await ctx.targetName();
        const result = await installHooks({
          cwd: ctx.cwd,
          store,
          target,
          prePush: Boolean(opts.prePush),
          force: Boolean(opts.force),
          node: process.execPath,
          landEntry: landEntry(),
        });
        if (ctx.out.json) {
          ctx.out.emit(result);
          return;
        }
        for (const hook of result.installed) ctx.out.say(`${hook.action === 'created' ? 'installed' : 'replaced'} ${hook.path}`);
        ctx.out.say(`refs/heads/${target} now moves only through \`land run\` (token file ${result.tokenFile})`);
        ctx.out.note(
          'the hook guards against mistakes; `git -c core.hooksPath=...` skips it: a server-side pre-receive hook (`land hooks pre-receive`) is the real guard',
        );
      }),
    );
  hooks
    .command('uninstall')
    .description("remove land's hooks (hooks land did not write are left alone)")
    .option('--json', 'print { hooksDir, removed, kept } as JSON')
    .action(
      action<{ json?: boolean }>(async (ctx) => {
        const result = await uninstallHooks({ cwd: ctx.cwd, store: await ctx.store() });
        if (ctx.out.json) {
          ctx.out.emit(result);
          return;
        }
        for (const path of result.removed) ctx.out.say(`removed ${path}`);
        for (const path of result.kept) ctx.out.note(`kept ${path}: not written by land`);
        if (!result.removed.length) ctx.out.say('no land hook installed');
      }),
    );
  hooks
    .command('pre-receive')
    .description(
      "print a pre-receive hook for a server repository: with the same rule, for a drainer on the server's machine; with --queue, for the server of a remote queue (the target moves only in a lease holder's landing push)",
    )
    .option('--token-file <path>', "the drainer's token file (sha256 of its landing token, pid, start time; default: this repository's)")
    .option('--queue', 'the rule for a queue kept in this remote: a push that moves the target must renew refs/land/lease, same holder, not released')
    .action(
      action<{ tokenFile?: string; queue?: boolean }>(async (ctx, opts) => {
        if (opts.queue && opts.tokenFile !== undefined)
          throw new LandError('usage', '--queue checks the lease, not a token file: use one of --queue and --token-file');
        const target = await ctx.targetName();
        if (opts.queue) {
          process.stdout.write(queuePreReceiveScript({ target }));
          return;
        }
        const tokenFile = opts.tokenFile ?? (await ctx.store()).tokenFile();
        process.stdout.write(preReceiveScript({ target, tokenFile }));
      }),
    );
}
