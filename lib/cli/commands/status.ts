import type { Command } from 'commander';
import { displayOrder } from '../../queue/index.js';
import type { JobRecord } from '../../store/index.js';
import { readWindowView, windowSummary } from '../../landing/windowView.js';
import { action } from '../action.js';
import { age, showName, short, table } from '../output.js';

function stateText(job: JobRecord): string {
  const parts: string[] = [job.state];
  if (job.stopRequest) parts.push(`stop:${job.stopRequest.kind}`);
  if (job.reason && job.state !== 'landed' && job.reason !== job.state) parts.push(job.reason);
  return parts.join(' ');
}

function note(job: JobRecord): string {
  if (job.conflictPreview) return `conflicts: ${job.conflictPreview.paths.join(', ')}`;
  if (job.batch && job.state === 'in_progress') return `train ${job.batch.id} attempt ${job.batch.attempt}`;
  return job.title === job.branch ? '' : job.title;
}

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('the queue in landing order: position, state, branch, tip, age')
    .option('--all', 'include landed, failed and canceled jobs')
    .option('--json', 'print { window, jobs, corrupt } as JSON')
    .action(
      action<{ all?: boolean; json?: boolean }>(async (ctx, opts) => {
        const store = await ctx.store();
        const { jobs, corrupt } = store.listJobs();
        const shown = displayOrder(jobs).filter((job) => opts.all || job.state === 'queued' || job.state === 'in_progress');
        const window = await readWindowView(store, ctx.cwd, ctx.options.target);
        for (const bad of corrupt) ctx.out.note(`land: skipped corrupt job record ${bad.file}: ${bad.problem}`);
        let position = 0;
        const rows = shown.map((job) => ({ position: job.state === 'queued' ? ++position : null, job }));
        if (ctx.out.json) {
          ctx.out.emit({ window, jobs: rows.map(({ position: pos, job }) => ({ position: pos, ...job })), corrupt });
          return;
        }
        ctx.out.say(`${windowSummary(window)}; ${jobs.filter((j) => j.state === 'queued').length} queued, ${jobs.filter((j) => j.state === 'in_progress').length} running`);
        if (!rows.length) {
          ctx.out.say('the queue is empty');
          return;
        }
        ctx.out.say(
          table(
            ['#', 'id', 'state', 'branch', 'tip', 'age', 'note'],
            rows.map(({ position: pos, job }) => [
              pos === null ? (job.state === 'in_progress' ? 'run' : '') : String(pos),
              job.id,
              stateText(job),
              showName(job.branch),
              short(job.tip),
              age(job.timestamps.queued),
              note(job),
            ]),
          ),
        );
      }),
    );
}
