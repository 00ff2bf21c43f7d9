// Train outcomes over time: one mark per train, at its time and its number of members, coloured
// by its outcome (lib/report/trainFacts.ts outcomeOf: PASS, FAIL alone, FAIL bisected, cached,
// fast path, INFRA, PASS not landed), plus one per speculative train abandoned (journal). Pure.
import type { History } from '../../stats/history.js';
import {
  BOX,
  type Chart,
  esc,
  frame,
  legend,
  linearScale,
  niceDomain,
  niceTicks,
  noData,
  num,
  timeDomain,
  timeLabel,
  timeTicks,
  xAxis,
  yAxis,
  maxOf,
} from '../svg.js';
import { OUTCOME_COLORS, OUTCOME_LABELS, OUTCOMES, type Outcome, outcomeOf } from '../trainFacts.js';

export const OUTCOMES_CHART = 'train-outcomes';
const TITLE = 'Train outcomes over time';
const CAPTION =
  'One mark per train (metrics.jsonl), at its time and its number of members, coloured by how it ended; abandoned speculative trains come from the journal.';

export interface OutcomePoint {
  time: number;
  members: number;
  outcome: Outcome;
  train: string;
  /** The members' branches where the row names them, else their job ids. */
  names: string[];
  reason: string | null;
}

export function outcomesData(history: History): OutcomePoint[] {
  const points: OutcomePoint[] = history.trains.map((train) => ({
    time: train.time,
    members: train.members.length,
    outcome: outcomeOf(train),
    train: train.train,
    names: train.branches ?? train.members,
    reason: train.reason ?? null,
  }));
  for (const abandoned of history.abandoned) {
    points.push({
      time: abandoned.at,
      members: abandoned.members.length,
      outcome: 'abandoned',
      train: abandoned.train,
      names: abandoned.members,
      reason: null,
    });
  }
  return points.sort((a, b) => a.time - b.time);
}

function describe(p: OutcomePoint): string {
  const why = p.reason ? ` (${p.reason})` : '';
  return `${new Date(p.time).toISOString()}: train ${p.train}: ${OUTCOME_LABELS[p.outcome]}${why}; ${p.members} member${p.members === 1 ? '' : 's'}: ${p.names.join(', ')}`;
}

export function outcomesChart(points: readonly OutcomePoint[]): Chart {
  const base = { name: OUTCOMES_CHART, title: TITLE, caption: CAPTION };
  if (points.length === 0) return { ...base, markup: noData(OUTCOMES_CHART, TITLE, 'no train has been judged yet'), marks: 0 };
  const box = BOX;
  const [t0, t1] = timeDomain(points.map((p) => p.time));
  const x = linearScale([t0, t1], [box.left, box.width - box.right]);
  const top = niceDomain(maxOf(points.map((p) => p.members)) + 1, 2);
  const y = linearScale(top, [box.height - box.bottom, box.top]);
  const { ticks, step } = timeTicks(t0, t1);
  const present = OUTCOMES.filter((outcome) => points.some((p) => p.outcome === outcome));
  const marks = points.map(
    (p) =>
      `<circle class="mark outcome-${p.outcome}" data-outcome="${p.outcome}" cx="${num(x(p.time))}" cy="${num(y(p.members))}" r="5" fill="${OUTCOME_COLORS[p.outcome]}"><title>${esc(describe(p))}</title></circle>`,
  );
  const body =
    legend(
      box,
      present.map((outcome) => ({ label: OUTCOME_LABELS[outcome], color: OUTCOME_COLORS[outcome] })),
    ) +
    yAxis(
      box,
      y,
      niceTicks(top[0], top[1], 5).filter((v) => Number.isInteger(v)),
      String,
      'members',
    ) +
    xAxis(box, x, ticks, (v) => timeLabel(v, step), 'time (UTC)') +
    marks.join('');
  return { ...base, markup: frame(OUTCOMES_CHART, TITLE, body, box), marks: points.length };
}
