// `land report` opened in a real browser: a small real history (four jobs through the CLI, one of
// them a culprit with a hostile branch name, so there are trains, a bisection and a failed job),
// the report written by the built CLI, then loaded in headless Chromium (Debian's `chromium`,
// driven by playwright-core). Checked: no network request but the file itself; each chart's marks
// in the DOM are as many as the state files say (metrics rows, landed jobs, gate results, failed
// jobs) and really drawn (a non-zero box); names are text, never markup. The full-page
// screenshot's path is printed.
//
// Needs Chromium (LAND_TEST_CHROMIUM, else /usr/bin/chromium). Without it the test is left out under
// a title that says how to install it, unless LAND_REQUIRE_CHROMIUM=1 (.ci/run sets it), which
// makes its absence a failure.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { land, ROOT } from '../helpers/cli.js';
import { makeQueueRepo } from '../helpers/queue.js';
import { cleanupTempDirs, tempDir } from '../helpers/repo.js';

afterAll(cleanupTempDirs);

const CHROMIUM = process.env.LAND_TEST_CHROMIUM || '/usr/bin/chromium';
const REQUIRED = process.env.LAND_REQUIRE_CHROMIUM === '1';
const INSTALLED = existsSync(CHROMIUM);
const TITLE =
  INSTALLED || REQUIRED
    ? `land report in headless Chromium (${CHROMIUM})`
    : `land report in headless Chromium (needs Chromium at ${CHROMIUM}: apt-get install chromium, or LAND_TEST_CHROMIUM=<path>; LAND_REQUIRE_CHROMIUM=1 makes its absence a failure)`;

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const HOSTILE = `fix/<b>&"quoted'`;
const OUTPUT = join(ROOT, 'test-output');

interface MetricsRow {
  cached?: boolean;
  windowAfter?: number;
  gate?: { results?: unknown[] } | null;
  runs?: { cached: boolean; results: unknown[] }[];
}

/** What the state files say each chart must draw (read here, not through the report's code). */
function expectedFromState(dir: string, jobs: { state: string }[]) {
  const rows = readFileSync(join(dir, '.git', 'land', 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as MetricsRow);
  const gateResults = rows
    .filter((row) => !row.cached)
    .reduce(
      (sum, row) => sum + (row.runs ? row.runs.filter((run) => !run.cached).reduce((n, run) => n + run.results.length, 0) : (row.gate?.results?.length ?? 0)),
      0,
    );
  return {
    window: rows.filter((row) => typeof row.windowAfter === 'number').length,
    'time-to-land': jobs.filter((job) => job.state === 'landed').length,
    'train-outcomes': rows.length,
    'gate-durations': gateResults,
    'failed-jobs': jobs.filter((job) => job.state === 'failed').length,
  };
}

async function realHistory() {
  const repo = makeQueueRepo({ batch: { max: 8 } });
  repo.branch('feature/one', { 'one.txt': '1\n' });
  repo.branch('feature/two', { 'two.txt': '2\n' });
  repo.branch(HOSTILE, { 'culprit-3': '3\n' });
  repo.branch('feature/four', { 'four.txt': '4\n' });
  const submit = await land(repo.dir, ['submit', 'feature/one', 'feature/two', HOSTILE, 'feature/four', '--json']);
  expect(submit.code, submit.stderr).toBe(0);
  expect((await land(repo.dir, ['window', '--set', '4'])).code).toBe(0);
  const run = await land(repo.dir, ['run', '--json']);
  expect(run.code, run.stderr).toBe(0);
  const status = await land(repo.dir, ['status', '--all', '--json']);
  const jobs = status.json<{ jobs: { id: string; branch: string; state: string }[] }>().jobs;
  return { repo, jobs };
}

describe.skipIf(!INSTALLED && !REQUIRED)(TITLE, () => {
  it('draws every chart from the data, loads nothing from the network, and shows names as text', async () => {
    if (!INSTALLED) throw new Error(`LAND_REQUIRE_CHROMIUM=1: no Chromium at ${CHROMIUM} (apt-get install chromium, or LAND_TEST_CHROMIUM=<path>)`);
    const started = Date.now();
    const { repo, jobs } = await realHistory();
    const drained = Date.now();
    expect(jobs.map((job) => job.state).sort()).toEqual(['failed', 'landed', 'landed', 'landed']);
    const expected = expectedFromState(repo.dir, jobs);
    expect(expected['train-outcomes']).toBeGreaterThanOrEqual(3); // the train of four, its halves, the culprit alone
    mkdirSync(OUTPUT, { recursive: true });
    const file = join(OUTPUT, 'report.html');
    const written = await land(repo.dir, ['report', '--html', file, '--json']);
    expect(written.code, written.stderr).toBe(0);
    // --json counts marks: for the histogram, its bars (checked against the DOM below).
    const { 'time-to-land': _bars, ...others } = expected;
    const reported = written.json<{ file: string; empty: boolean; charts: Record<string, number> }>();
    expect(reported).toMatchObject({ file, empty: false, charts: others });

    const context = await chromium.launchPersistentContext(tempDir('land-chromium-'), { executablePath: CHROMIUM, args: ARGS, headless: true });
    try {
      const requests: string[] = [];
      context.on('request', (request) => requests.push(request.url()));
      const page = await context.newPage();
      const url = pathToFileURL(file).href;
      await page.goto(url, { waitUntil: 'load' });
      const drawn = await page.evaluate(() =>
        [...document.querySelectorAll('[data-chart]')].map((chart) => ({
          name: chart.getAttribute('data-chart'),
          marks: [...chart.querySelectorAll('.mark')].map((mark) => {
            const box = mark.getBoundingClientRect();
            return { width: box.width, height: box.height, count: Number(mark.getAttribute('data-count') ?? '1') };
          }),
          noData: (chart.textContent ?? '').includes('no data'),
        })),
      );
      expect(drawn.map((chart) => chart.name)).toEqual(Object.keys(expected));
      for (const chart of drawn) {
        const name = chart.name as keyof typeof expected;
        // The histogram draws one bar per bin; its bars' counts add up to the landed jobs.
        const count = name === 'time-to-land' ? chart.marks.reduce((sum, mark) => sum + mark.count, 0) : chart.marks.length;
        expect(count, name).toBe(expected[name]);
        expect(chart.marks.length, `${name}: as --json counts its marks`).toBe(reported.charts[name]);
        expect(chart.noData, name).toBe(false);
        for (const mark of chart.marks) expect(mark.width > 0 && mark.height > 0, `${name}: a mark with an empty box`).toBe(true);
      }
      // The culprit's branch is text in its row, not markup.
      const culprit = jobs.find((job) => job.state === 'failed');
      const row = await page.locator(`tr[data-job="${culprit?.id}"] td`).allTextContents();
      expect(row.slice(1, 3)).toEqual([culprit?.id, HOSTILE]);
      expect(row.at(-1)).toBe(`land why ${culprit?.id}`);
      expect(await page.locator('b, script, img').count()).toBe(0);
      expect(requests).toEqual([url]);
      const screenshot = join(OUTPUT, 'report.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      expect(readFileSync(screenshot).subarray(1, 4).toString()).toBe('PNG');
      console.log(`land report screenshot: ${screenshot} (the page: ${file})`);
      console.log(`timing: history ${drained - started} ms, report and browser ${Date.now() - drained} ms`);
    } finally {
      await context.close();
    }
  });
});
