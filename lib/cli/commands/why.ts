import type { Command } from 'commander';
import { readStory } from '../../story/readStory.js';
import { action } from '../action.js';
import { renderStory } from '../describeStory.js';
import { JOB_ARG_HELP, jobIdOf } from '../jobArg.js';

export function registerWhy(program: Command): void {
  program
    .command('why')
    .argument('[job]', JOB_ARG_HELP)
    .description(
      "a job's whole story from the journal: its trains, verdicts with an excerpt of the failing gate's output (its failure lines, then its last lines; each distinct output once), bisection, conflicts, stops, and how it ended",
    )
    .option('--json', 'print { job, events, trains, skippedJournalLines } as JSON')
    .action(
      action<{ json?: boolean }>(async (ctx, _opts, args) => {
        const store = await ctx.store();
        const story = readStory(store, await jobIdOf(ctx, args[0]));
        if (story.skippedJournalLines.length) {
          ctx.out.note(
            `land: note: ${story.skippedJournalLines.length} journal line(s) mentioning ${story.job.id} could not be read and were skipped (line ${story.skippedJournalLines.join(', ')})`,
          );
        }
        if (ctx.out.json) ctx.out.emit(story);
        else ctx.out.say(renderStory(story).join('\n'));
      }),
    );
}
