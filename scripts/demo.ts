// `npm run demo`: the landing queue end to end on a throwaway repository, with the real CLI.
// Six branches (four good, one that breaks the gate, one that conflicts with a good one) ride one
// train that fails, is bisected, lands the good ones and fails the other two; then a seventh
// branch proven with `land prove` lands alone without a gate. It ends with the culprit's story
// (`land why`) and its failed train rebuilt and gated again (`land repro --run`). Every command is
// printed with its output as it runs. `--keep` leaves the temporary folder in place.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { act, commitFiles, DemoError, git, initRepo, land, makeBranch, say, shownGit, writeFiles } from './demoSupport.js';

const CHECK_SH = `#!/bin/sh
# The demo's gate: fails when the tree holds a file named BROKEN; says what it checked.
set -u
echo "check: train \${LAND_TRAIN:-?} at \${LAND_TIP:-HEAD} (members: \${LAND_MEMBERS:-none})"
echo "check: $(find . -name .git -prune -o -type f -print | wc -l | tr -d ' ') files in the tree"
if [ -e BROKEN ]; then
  echo "check: FAIL: found a file named BROKEN"
  exit 1
fi
echo "check: PASS: no file named BROKEN"
`;

const POLICY = {
  target: 'main',
  gates: [{ name: 'check', run: ['sh', 'scripts/check.sh'], timeoutSeconds: 60 }],
  // The gate's script is always the target's: a queued branch cannot rewrite its own gate.
  trusted: ['scripts/check.sh'],
  batch: { max: 8 },
};

const APP_CONF = 'greeting = hello\ntheme = light\nitems_per_page = 20\n';

/** The six branches of the first act, in the order they are submitted. */
const BRANCHES: { name: string; message: string; files: Record<string, string> }[] = [
  {
    name: 'feature/login',
    message: 'login page; greet returning users',
    files: { 'login.txt': 'login form\n', 'app.conf': APP_CONF.replace('hello', 'welcome back') },
  },
  { name: 'feature/search', message: 'search box', files: { 'search.txt': 'search box\n' } },
  { name: 'feature/profile', message: 'profile page', files: { 'profile.txt': 'profile page\n' } },
  { name: 'feature/broken', message: 'half-done export (breaks the check)', files: { 'export.txt': 'export\n', BROKEN: 'not ready\n' } },
  { name: 'feature/greeting', message: 'friendlier greeting', files: { 'app.conf': APP_CONF.replace('hello', 'hi there') } },
  { name: 'feature/theme', message: 'dark theme option', files: { 'theme.txt': 'dark theme\n' } },
];

interface JobView {
  id: string;
  branch: string;
  state: string;
  reason?: string | null;
}

async function jobs(repo: string): Promise<{ window: { size: number }; jobs: JobView[] }> {
  const status = await land(repo, ['status', '--all', '--json'], { quiet: true });
  return JSON.parse(status.stdout) as { window: { size: number }; jobs: JobView[] };
}

async function jobOf(repo: string, branch: string): Promise<JobView> {
  const found = (await jobs(repo)).jobs.find((job) => job.branch === branch);
  if (!found) throw new DemoError(`no job for ${branch} in land status --all --json`);
  return found;
}

/** "done: 4 train(s), 4 gate run(s), ..." from land run's last stdout line. */
function runCounts(stdout: string): { trains: number; gateRuns: number } | null {
  const match = /done: (\d+) train\(s\), (\d+) gate run\(s\)/.exec(stdout);
  return match ? { trains: Number(match[1]), gateRuns: Number(match[2]) } : null;
}

/**
 * `land repro --run` of the culprit: the train it failed in, rebuilt outside the state folder; its
 * gate must fail there as it did (exit 5). The worktree is removed afterwards, as the command says.
 */
async function reproduce(repo: string, id: string): Promise<void> {
  const repro = await land(repo, ['repro', id, '--run'], { allowFail: true });
  if (repro.code !== 5) throw new DemoError(`land repro ${id} --run exited ${repro.code}; expected 5 (the failure reproduced)`);
  const dir = /^remove it: git worktree remove --force (.+)$/m.exec(repro.stdout)?.[1];
  if (!dir) throw new DemoError('land repro printed no worktree to remove');
  await shownGit(repo, ['worktree', 'remove', '--force', dir]);
}

async function story(root: string): Promise<void> {
  const repo = join(root, 'repo');
  act('a repository with a landing policy');
  mkdirSync(repo);
  initRepo(repo);
  writeFiles(repo, { 'README.md': '# demo app\n', 'app.conf': APP_CONF, 'scripts/check.sh': CHECK_SH, '.ctm.json': `${JSON.stringify(POLICY, null, 2)}\n` });
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'demo app with its landing policy');
  say(`created ${repo}: main holds README.md, app.conf, scripts/check.sh (the gate) and .ctm.json`);
  await land(repo, ['config']);

  act('six branches, queued');
  for (const branch of BRANCHES) {
    makeBranch(repo, branch.name, branch.message, branch.files);
    say(`branch ${branch.name.padEnd(17)} ${branch.message} (${Object.keys(branch.files).join(', ')})`);
  }
  for (const branch of BRANCHES) await land(repo, ['submit', branch.name]);
  await land(repo, ['status']);

  act('land run: one train, a bisection, the landings, the conflict');
  const first = await land(repo, ['run']);
  const firstCounts = runCounts(first.stdout);

  act('what happened');
  await land(repo, ['status', '--all']);
  await shownGit(repo, ['log', '--graph', '--oneline', 'main']);
  const broken = await jobOf(repo, 'feature/broken');
  await land(repo, ['show', broken.id]);
  const conflicted = await jobOf(repo, 'feature/greeting');
  await land(repo, ['show', conflicted.id]);

  act('the proof fast path');
  const worktree = join(root, 'docs-worktree');
  await shownGit(repo, ['worktree', 'add', '-q', '-b', 'feature/docs', worktree, 'main']);
  commitFiles(worktree, 'user guide', { 'GUIDE.md': '# user guide\n' });
  say(`(committed GUIDE.md on feature/docs in ${worktree})`);
  await land(repo, ['-C', worktree, 'prove']);
  await land(repo, ['submit', 'feature/docs']);
  const second = await land(repo, ['run']);
  const secondCounts = runCounts(second.stdout);
  const docs = await jobOf(repo, 'feature/docs');
  if (docs.state !== 'landed') throw new DemoError(`feature/docs ended ${docs.state}${docs.reason ? ` (${docs.reason})` : ''}, expected landed`);
  const fastPath = /already proven/.test(second.stderr);
  if (!fastPath) {
    say('\nnote: land run printed no fast_path event: the fast path is not wired into the drain loop in this build,');
    say('so feature/docs rode a train of one and its gate ran again. It landed all the same.');
  }

  act('summary');
  const final = await jobs(repo);
  const byId = (a: JobView, b: JobView) => a.id.localeCompare(b.id);
  const landed = final.jobs.filter((job) => job.state === 'landed').sort(byId);
  const failed = final.jobs.filter((job) => job.state === 'failed').sort(byId);
  const failures = failed.map((job) => `${job.branch} (${job.reason ?? 'failed'})`).join(' and ') || 'none';
  const counts = firstCounts ? `${firstCounts.trains} trains built and ${firstCounts.gateRuns} gate runs` : 'its trains';
  const cachedFails = (first.stderr.match(/verdict FAIL \(cached\)/g) ?? []).length;
  const heldOut = /conflicts with the train/.test(first.stderr);
  const reruns = (first.stderr.match(/its gates run again on the same tree/g) ?? []).length;
  say(
    [
      `${final.jobs.length} jobs were queued: ${landed.length} landed (${landed.map((job) => job.branch).join(', ')}) and ${failed.length} failed: ${failures}.`,
      heldOut
        ? 'In the first land run, feature/greeting was held out of the first train because it edits the same line of app.conf as feature/login;'
        : 'In the first land run,',
      `the other branches rode one train, which failed on feature/broken's BROKEN file and was bisected (${counts}${cachedFails ? `; ${cachedFails} FAIL came from the verdict cache and cost no gate run` : ''})`,
      `until feature/broken alone failed${reruns ? ` (its FAIL was confirmed by ${reruns} more run(s) of its tree: this new repository's gate has no history yet, so one FAIL could be a flake until more runs confirm it; a gate with a clean history fails it at once)` : ''};`,
      'every passing train landed its members with one compare-and-swap of main,',
      'and feature/greeting then failed as a conflict with main (its author must rebase and submit again).',
      fastPath
        ? `Finally feature/docs, proven beforehand with land prove in its own worktree, landed alone with ${secondCounts?.gateRuns ?? 'no'} gate runs (the fast path).`
        : `Finally feature/docs, proven beforehand with land prove, landed through a train of one with ${secondCounts?.gateRuns ?? '?'} gate run(s): this build has no fast path.`,
      `The window ended at ${final.window.size} of max ${POLICY.batch.max}.`,
    ].join(' '),
  );

  act('why was feature/broken removed, and how to reproduce it');
  await land(repo, ['why', broken.id]);
  await reproduce(repo, broken.id);

  act('what a maintainer sees: the figures, a report with charts, advice on the batch window');
  await land(repo, ['stats']);
  // The report outlives the throwaway repository: it is written next to it, in the temp folder.
  const report = join(tmpdir(), `land-demo-report-${process.pid}.html`);
  await land(repo, ['report', '--html', report]);
  await land(repo, ['tune']);
  say(`\nthe report is ${report}: open it in a browser (one self-contained page, nothing loaded from the network)`);
}

async function main(): Promise<number> {
  const keep = process.argv.slice(2).includes('--keep');
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'land-demo-')));
  say(`land demo in ${root}${keep ? ' (kept afterwards: --keep)' : ' (removed at the end; --keep keeps it)'}`);
  // A Ctrl-C reaches the running child too; it exits, the step fails, and the folder is cleaned up.
  process.on('SIGINT', () => undefined);
  try {
    await story(root);
    return 0;
  } catch (error) {
    process.stderr.write(`\ndemo failed: ${error instanceof DemoError ? error.message : ((error as Error)?.stack ?? String(error))}\n`);
    if (!keep) process.stderr.write('hint: npm run demo -- --keep keeps the temporary repository for a look\n');
    return 1;
  } finally {
    if (keep) say(`\nthe repository is kept in ${join(root, 'repo')}`);
    else rmSync(root, { recursive: true, force: true });
  }
}

process.exitCode = await main();
