// Before a job rides a train, its tip must be a commit this repository has: a tip that is a tree or
// a blob (a hostile record), that is gone (its branch deleted and pruned by git gc) or that was
// never pushed to a remote queue would make every merge of every train fail. Such a job is failed
// on its own (reason `bad_tip`, plan/tipCheck.ts) and the others ride on. One `git cat-file
// --batch-check` asks about every tip not checked lately: a tip found to be a commit is trusted for
// a minute (the drain's `tipChecks`), so a drain of many short trains asks about each tip about
// once, and a tip pruned while its job waits in a long queue is still found before it rides.
import { objectTypes } from '../../git/index.js';
import { applyChanges } from '../../queue/index.js';
import type { JobRecord } from '../../store/index.js';
import { badTipSteps, classifyTip, type BadTip } from '../plan/tipCheck.js';
import type { DrainContext } from './runTrains.js';

/** How long a tip found to be a commit is not asked about again (ms). */
export const TIP_TRUSTED_MS = 60_000;

/** The jobs whose tip is a commit here; the others are failed with reason `bad_tip` (journal first) and reported. */
export async function admitTips(ctx: DrainContext, jobs: readonly JobRecord[]): Promise<JobRecord[]> {
  const now = performance.now();
  const trusted = (tip: string) => now - (ctx.tipChecks.get(tip) ?? Number.NEGATIVE_INFINITY) < TIP_TRUSTED_MS;
  const asked = jobs.filter((job) => !trusted(job.tip));
  if (!asked.length) return [...jobs];
  for (const [tip, at] of ctx.tipChecks) if (now - at >= TIP_TRUSTED_MS) ctx.tipChecks.delete(tip); // a long --watch keeps no old tips
  const answers = await objectTypes(
    ctx.cwd,
    asked.map((job) => job.tip),
  );
  const bad: { job: JobRecord; verdict: BadTip }[] = [];
  for (const job of asked) {
    const verdict = classifyTip(job.tip, answers.get(job.tip));
    if (verdict.kind === 'ok') ctx.tipChecks.set(job.tip, now);
    else bad.push({ job, verdict });
  }
  if (!bad.length) return [...jobs];
  const steps = badTipSteps(bad);
  await applyChanges(ctx.store, steps.changes);
  for (const event of steps.events) ctx.emit(event);
  const failed = new Set(bad.map(({ job }) => job.id));
  return jobs.filter((job) => !failed.has(job.id));
}
