// The failure story as lines for a person: one line per event (time, then what happened), with
// the gate output and the bisection steps indented under the event they belong to. Each line is
// escaped as a whole (printable): a title, a message or a gate's output line stays on its line.
import type { GateOutcome, MemberRef, Story, StoryEvent } from '../story/types.js';
import { trustedSentence } from '../landing/gates/trusted.js';
import { advisorySentence, describeLogTail } from './describeJob.js';
import { showName, short } from './output.js';
import { printable } from '../text/safeText.js';

const INDENT = ' '.repeat(22);

function when(at: string | null): string {
  if (!at) return INDENT;
  const match = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)/.exec(at);
  return `${match ? `${match[1]} ${match[2]}Z` : at}  `.padEnd(INDENT.length);
}

function member(ref: MemberRef, self: string): string {
  const name = ref.branch ? showName(ref.branch) : ref.id;
  return ref.id === self ? `${name} (this job)` : name;
}

function members(refs: readonly MemberRef[], self: string): string {
  return refs.map((ref) => member(ref, self)).join(', ');
}

function gate(outcome: GateOutcome): string {
  return `gate ${outcome.name}: ${outcome.status}${outcome.seconds === null ? '' : ` after ${outcome.seconds}s`}`;
}

const REQUEUE_WORDS: Record<string, string> = {
  bisected: 'its train failed and was split; this job is in the second half, back at the head of the queue',
  preempted: 'stepped aside for an urgent job',
  interrupted: 'the drainer was stopped during the gate; the run says nothing',
  withdrawn: 'another member withdrew during the gate; the run is void',
  cas_lost: 'the target moved during the gate; the train is rebuilt',
  target_dirty: 'the checked-out target has uncommitted changes; nothing landed',
  hook_off: "land's hook protecting the target would not run (core.hooksPath changed, or the hook replaced); nothing landed",
  recovered: 'its drainer stopped; recovered and put back in the queue',
  gate_not_started: 'a gate could not start; nothing was tested',
  no_lane: 'no lane answered; nothing was tested',
  no_ledger_store: 'no ledger store; nothing was tested',
  worktree: 'the gate worktree could not be made; nothing was tested',
  target_red: "it failed alone, but the target itself fails its gates: not this job's fault; it waits for the target to be fixed",
};

/** What a failure reason means, where its message does not say it. */
const FAILED_WORDS: Record<string, string> = {
  bad_tip: 'no train can merge it; push the branch and submit it again',
};

function failedText(reason: string | null, message: string | null): string {
  const words = reason ? FAILED_WORDS[reason] : undefined;
  return `failed (${reason ?? '?'})${message ? `: ${message}` : ''}${words ? `; ${words}` : ''}`;
}

/** The line saying which trusted paths the gates saw in the target's version, if any. */
function trustedLines(event: StoryEvent & { kind: 'verdict' }): string[] {
  if (!event.trusted) return [];
  const { job, restored } = event.trusted;
  return [`${INDENT}${job.length ? trustedSentence(job, 'job') : trustedSentence(restored, 'train')}`];
}

/** One line per advisory gate that failed in the train's run: told, not counted. */
function advisoryLines(event: StoryEvent & { kind: 'verdict' }): string[] {
  return (event.advisoryFailed ?? []).map((g) => `${INDENT}${advisorySentence(g.name, g.status)}`);
}

function verdictLines(event: StoryEvent & { kind: 'verdict' }, head: string): string[] {
  const from = event.cached ? (event.cachedFrom ? ` (cached: the same tree failed in train ${event.cachedFrom})` : ' (cached)') : '';
  if (event.verdict === 'PASS') {
    const ran = event.gates.map((g) => `${g.name} ${g.seconds ?? '?'}s`).join(', ');
    return [`${head}verdict PASS${event.cached ? ' (cached)' : ''}${ran ? `: ${ran}` : ''}`, ...advisoryLines(event), ...trustedLines(event)];
  }
  if (event.verdict === 'VOID') {
    const ran = event.gates.map((g) => `${g.name} ${g.seconds ?? '?'}s`).join(', ');
    return [`${head}run void (${event.reason ?? 'abandoned'}): nothing it found counts${ran ? `; gates spent: ${ran}` : ''}`];
  }
  const what = event.failing ? gate(event.failing) : (event.reason ?? 'no gate named');
  const lines = [`${head}verdict ${event.verdict}${from}: ${what}${event.reason && event.reason !== 'gate' ? ` (${event.reason})` : ''}`];
  lines.push(...advisoryLines(event), ...trustedLines(event));
  if (event.log) lines.push(`${INDENT}log ${event.log}${event.logHere === false ? ` (the drainer's; not on this machine)` : ''}`);
  if (event.sameOutputAs) {
    lines.push(`${INDENT}the same output as train ${event.sameOutputAs} (above)`);
  } else if (event.output?.length) {
    const also = event.sameOutputIn?.length ? ` (the same in train ${event.sameOutputIn.join(', ')})` : '';
    lines.push(`${INDENT}excerpt of ${event.failing ? `gate ${event.failing.name}'s output` : 'the log'}${also}:`);
    for (const line of event.output) lines.push(`${INDENT}| ${line}`);
  } else if (event.output) {
    lines.push(`${INDENT}(the gate printed nothing)`);
  }
  return lines;
}

function bisectionLines(event: StoryEvent & { kind: 'bisection' }, head: string, self: string): string[] {
  const lines = [`${head}bisection of batch ${event.batch}:`];
  const width = Math.max(...event.steps.map((step) => step.train.length));
  for (const step of event.steps) {
    const verdict = `${step.verdict}${step.cached ? ' cached' : ''}${step.landed ? ' landed' : ''}`.padEnd(18);
    const isolated = step.verdict === 'FAIL' && step.members.length === 1 && step.rode ? '  <- isolated' : '';
    lines.push(`${INDENT}  ${step.train.padEnd(width)}  round ${String(step.attempt ?? '?').padEnd(3)} ${verdict}${members(step.members, self)}${isolated}`);
  }
  return lines;
}

function eventLines(event: StoryEvent, self: string, story: Story): string[] {
  const head = when(event.at);
  switch (event.kind) {
    case 'submitted':
      return [
        `${head}submitted by ${event.by}: ${showName(event.branch)}${event.tip ? ` at ${short(event.tip)}` : ''}${event.title ? ` "${event.title}"` : ''}${event.fromRecord ? ' (from the job record; the journal has no submission line)' : ''}`,
        ...(event.follows ? [`${INDENT}follows ${event.follows}: the branch's failed job before this tip (land why ${event.follows})`] : []),
      ];
    case 'tip_updated':
      return [`${head}new tip ${short(event.to)} (was ${short(event.from)})`];
    case 'rode': {
      const where = event.trainKind ? `${event.trainKind}${event.base ? ` on ${short(event.base)}` : ''}` : event.base ? `on ${short(event.base)}` : '';
      // Picked for a train it is not a member of: a conflict with the members ahead left it out (told next).
      const leftOut = event.members.length > 0 && !event.members.some((ref) => ref.id === self);
      const which = `train ${event.train} (${event.batch ? `batch ${event.batch}, ` : ''}round ${event.attempt ?? '?'})`;
      const lines = [`${head}${leftOut ? `picked for ${which}, which went without it` : `rode ${which}`}${where ? `: ${where}` : ''}`];
      if (event.members.length) lines.push(`${INDENT}members: ${members(event.members, self)}`);
      return lines;
    }
    case 'verdict':
      return verdictLines(event, head);
    case 'bisection':
      return bisectionLines(event, head, self);
    case 'conflict': {
      const with_ = event.against === 'target' ? 'the target' : 'the members ahead of it in the train';
      const then = event.outcome === 'failed' ? 'failed: rebase and submit again' : 'left out of the train and put back in the queue';
      return [
        `${head}conflict with ${with_}${event.train ? ` (train ${event.train})` : ''} in ${event.paths.length ? event.paths.join(', ') : '(paths not recorded)'}: ${then}`,
      ];
    }
    case 'stop_requested':
      return [
        `${head}${event.stop === 'preempt' ? `asked to step aside${event.forJob ? ` for urgent job ${event.forJob}` : ''}` : `${event.stop} requested`}${event.by ? ` by ${event.by}` : ''}`,
      ];
    case 'requeued':
      return [`${head}requeued (${event.reason}): ${REQUEUE_WORDS[event.reason] ?? 'back in the queue'}`];
    case 'retried': {
      const was = event.previousState ?? 'failed';
      const before = event.previousReason && event.previousReason !== was ? `${was}: ${event.previousReason}` : was;
      const how = event.how === 'resubmitted' ? 'submitted again at the same tip' : 'retried';
      return [`${head}${how}${event.by ? ` by ${event.by}` : ''} (it had ${before === 'canceled' ? 'been canceled' : before}); back in the queue`];
    }
    case 'landed': {
      if (event.how === 'already_contained') return [`${head}landed: its tip was already in the target`];
      const how = event.how === 'recovered_landed' ? ' (found in the target after its drainer stopped)' : '';
      return [`${head}landed as ${short(event.commit)}${event.via ? ` via ${event.via}` : ''}${event.train ? ` in train ${event.train}` : ''}${how}`];
    }
    case 'failed':
      return [`${head}${failedText(event.reason, event.message)}`];
    case 'canceled':
      return [`${head}canceled${event.by ? ` by ${event.by}` : ''}`];
    case 'note':
      return [`${head}${event.text}`];
    case 'now':
      return [`now: ${nowText(event, story)}`, ...(tailNotShown(story) ? describeLogTail(event.gateLogTail, '  ') : [])];
    default: {
      const never: never = event;
      return [JSON.stringify(never)];
    }
  }
}

/**
 * Whether the failing gate's last lines have not been shown yet: its verdict (the story's last)
 * read no output from a log (the log is not on this machine, or this clone has no row of the
 * train: a queue kept in a remote). Then the record's `gateLogTail` is shown under `now:`.
 */
function tailNotShown(story: Story): boolean {
  const verdicts = story.events.filter((event) => event.kind === 'verdict');
  const last = verdicts[verdicts.length - 1];
  return !last || last.verdict === 'PASS' || last.output === null;
}

function nowText(event: StoryEvent & { kind: 'now' }, story: Story): string {
  switch (event.state) {
    case 'queued':
      return `queued${event.position ? ` at position ${event.position}` : ''}${event.reason ? ` (${event.reason})` : ''}`;
    case 'in_progress':
      return `riding train ${event.train ?? '?'}${event.log ? `; log ${event.log} (land log ${story.job.id} -f follows it)` : ''}`;
    case 'landed':
      return `landed as ${short(event.commit)}${event.via ? ` via ${event.via}` : ''}${event.train ? ` (train ${event.train})` : ''}`;
    case 'failed':
      return failedText(event.reason, event.message);
    case 'canceled':
      return `canceled${event.by ? ` by ${event.by}` : ''}`;
    case 'uncertain':
      return `uncertain (${event.reason ?? '?'})${event.message ? `: ${event.message}` : ''}; decide it with land reconcile --resolve ${story.job.id} landed|queued|failed|canceled`;
    default: {
      const never: never = event.state;
      return String(never);
    }
  }
}

export function renderStory(story: Story): string[] {
  const { job } = story;
  const lines = [`${job.id}: ${showName(job.branch)} at ${short(job.tip)}${job.title !== job.branch ? ` "${job.title}"` : ''}`];
  for (const event of story.events) lines.push(...eventLines(event, job.id, story));
  return lines.map(printable);
}
