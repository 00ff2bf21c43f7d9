// `land why` in this process: the story the command reads (lib/story/readStory.ts) and the lines
// it prints (lib/cli/describeStory.ts), from the same store the command opens. For the tests that
// check what a story says; one test per behaviour still runs `land why` through the CLI.
import { CommandContext } from '../../lib/cli/context.js';
import { renderStory } from '../../lib/cli/describeStory.js';
import { printableLines } from '../../lib/text/safeText.js';
import { readStory } from '../../lib/story/readStory.js';

export interface WhyResult {
  /** What `land why <id>` prints on stdout. */
  stdout: string;
  /** What `land why <id> --json` prints, parsed (the story after a JSON round trip, as a reader gets it). */
  json(): any;
}

export async function whyInProcess(cwd: string, id: string): Promise<WhyResult> {
  const ctx = await CommandContext.open({ cwd });
  const story = readStory(await ctx.store(), id);
  return { stdout: `${printableLines(renderStory(story).join('\n'))}\n`, json: () => JSON.parse(JSON.stringify(story)) };
}
