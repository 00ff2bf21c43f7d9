import type { Command } from 'commander';
import { EXIT_CODES } from '../../errors.js';
import { describeExecutors, probeExecutor } from '../../landing/executors/probe.js';
import { executorsOf } from '../../landing/executors/slots.js';
import { sshSettings } from '../../landing/executors/sshArgv.js';
import { checkSandbox, type SandboxReport } from '../../landing/gates/sandboxCheck.js';
import { resolveSandboxHost } from '../../landing/gates/sandboxHost.js';
import { action } from '../action.js';

function describe(report: SandboxReport): string[] {
  const lines = [`sandbox: mode ${report.mode}, ${report.mechanism ? `bubblewrap at ${report.mechanism}` : 'no mechanism'}`];
  if (report.unavailable) {
    lines.push(`  no sandbox: ${report.unavailable}`);
    lines.push(
      report.mode === 'required'
        ? '  land run refuses to run gates here (exit 14)'
        : report.mode === 'auto'
          ? '  land run runs gates UNSANDBOXED here, with a warning at every drain (docs/sandbox.md)'
          : '  sandbox.mode is off: gates run unsandboxed anyway',
    );
    return lines;
  }
  for (const finding of report.findings) lines.push(`  ${finding.ok ? 'ok  ' : 'FAIL'} ${finding.check.replace(/_/g, ' ')}: ${finding.detail}`);
  if (report.mode === 'off') lines.push('  sandbox.mode is off: land run does not use it (docs/sandbox.md)');
  return lines;
}

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check this machine for land: start a gate sandbox and report what it enforces (exit 14 when it cannot); check each executor answers')
    .option('--json', 'print { sandbox: { mode, mechanism, unavailable, findings, ok }, executors: [{ name, slots, dir, ok, detail }] }')
    .action(
      action<{ json?: boolean }>(async (ctx) => {
        const store = await ctx.store();
        const loaded = await ctx.policy();
        const host = await resolveSandboxHost(ctx.cwd, store, { probe: true });
        const report = await checkSandbox({ cwd: ctx.cwd, store, loaded, host });
        // Every executor at once: an unreachable one waits out ssh's connect timeout.
        const settings = sshSettings(process.env);
        const executors = await Promise.all(executorsOf(loaded.policy).map((executor) => probeExecutor(settings, executor)));
        if (ctx.out.json) ctx.out.emit({ sandbox: report, executors });
        else ctx.out.say([...describe(report), ...describeExecutors(executors)].join('\n'));
        return report.ok ? 0 : EXIT_CODES.no_sandbox;
      }),
    );
}
