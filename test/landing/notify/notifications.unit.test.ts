// Which drain events the policy's notify commands hear, and the JSON each one reads on stdin.
import { describe, expect, it } from 'vitest';
import { policySchema } from '../../../lib/config/schema.js';
import { LandError } from '../../../lib/errors.js';
import { notificationsOf, notifiersFor, stoppedByError, stoppedNotification, uncertainNotification } from '../../../lib/landing/notify/notifications.js';
import { newJobRecord } from '../../../lib/queue/index.js';
import { NOTIFICATION_EVENTS } from '../../../lib/store/formats/notification.js';
import { type JobRecord, notificationSchema } from '../../../lib/store/index.js';

const TIP = 'a'.repeat(40);
const AT = '2026-12-02T00:30:00.000Z';

function job(id: string, patch: Partial<JobRecord> = {}): JobRecord {
  return { ...newJobRecord({ id, branch: `feature/${id}`, tip: TIP, title: `change ${id}`, submitter: 'ann@example.com', urgent: false }), ...patch };
}

const landed = job('j-1', { state: 'landed', landedVia: 'merge', timestamps: { queued: '2026-12-02T00:00:00Z', landed: '2026-12-02T00:29:00Z' } });
const failed = job('j-2', {
  state: 'failed',
  reason: 'gate',
  error: { code: 'gate', message: 'gate test: exit 1; log /repo/.git/land/logs/b-1-t2.log' },
  gateLog: '/repo/.git/land/logs/b-1-t2.log',
  gateLogTail: ['not ok 3 - adds', '# fail 1'],
  batch: { id: 'b-1', members: ['j-2'], attempt: 2, index: 0, train: 'b-1-t2' },
  gate: {
    mode: 'full',
    executed: ['lint', 'test'],
    results: [
      { name: 'lint', outcome: 'exited', status: 'exit 0', seconds: 1 },
      { name: 'test', outcome: 'exited', status: 'exit 1', seconds: 4 },
    ],
  },
  timestamps: { queued: '2026-12-02T00:00:00Z', failed: '2026-12-02T00:29:30Z' },
});
const records = new Map([landed, failed].map((record) => [record.id, record]));
const facts = { target: 'main', at: AT, job: (id: string) => records.get(id) ?? null };

describe('notificationsOf', () => {
  it('one landed notification per member, with the train and the new tip', () => {
    const out = notificationsOf({ type: 'landed', train: 'b-1-t1', commit: 'c'.repeat(40), via: 'merge', members: ['j-1', 'j-gone'] }, facts);
    expect(out).toEqual([
      {
        version: 1,
        event: 'landed',
        at: AT,
        target: 'main',
        job: {
          id: 'j-1',
          branch: 'feature/j-1',
          tip: TIP,
          title: 'change j-1',
          submitter: 'ann@example.com',
          state: 'landed',
          reason: 'merge',
          message: null,
          queuedAt: '2026-12-02T00:00:00Z',
          endedAt: '2026-12-02T00:29:00Z',
        },
        train: 'b-1-t1',
        commit: 'c'.repeat(40),
        gate: null,
        stopped: null,
      },
    ]);
    for (const notification of out) expect(notificationSchema.parse(notification)).toEqual(notification);
  });

  it("a failed job: its reason and message, and the failing gate's name, status, log and excerpt", () => {
    const [notification] = notificationsOf({ type: 'failed', job: 'j-2', reason: 'gate', message: 'gate test: exit 1' }, facts);
    expect(notification).toMatchObject({
      event: 'failed',
      train: 'b-1-t2',
      commit: null,
      job: { id: 'j-2', state: 'failed', reason: 'gate', message: 'gate test: exit 1; log /repo/.git/land/logs/b-1-t2.log' },
      gate: { name: 'test', status: 'exit 1', log: '/repo/.git/land/logs/b-1-t2.log', excerpt: ['not ok 3 - adds', '# fail 1'] },
    });
    expect(notificationSchema.safeParse(notification).success).toBe(true);
  });

  it('a job failed by no gate (a conflict) has no gate part', () => {
    records.set('j-3', job('j-3', { state: 'failed', reason: 'conflict', error: { code: 'conflict', message: 'conflicts with main in a.txt' } }));
    const [notification] = notificationsOf({ type: 'failed', job: 'j-3', reason: 'conflict', message: '' }, facts);
    expect(notification?.gate).toBeNull();
  });

  it('a job recovered as landed is a landing; the other events are heard by no notifier', () => {
    expect(notificationsOf({ type: 'recovered', job: 'j-1', to: 'landed', train: 'b-0-t1' }, facts).map((n) => [n.event, n.train])).toEqual([
      ['landed', 'b-0-t1'],
    ]);
    expect(notificationsOf({ type: 'recovered', job: 'j-1', to: 'queued', train: null }, facts)).toEqual([]);
    expect(notificationsOf({ type: 'requeued', train: 'b-1-t1', jobs: ['j-1'], reason: 'bisected' }, facts)).toEqual([]);
    expect(notificationsOf({ type: 'verdict', train: 't', verdict: 'FAIL', cached: false, reason: 'gate', seconds: 1, log: null }, facts)).toEqual([]);
  });

  it('an error that ends land run is a stopped notification too: a LandError by its code, any other as internal', () => {
    expect(stoppedByError(new LandError('remote', 'cannot reach origin'))).toEqual({ why: 'remote', message: 'cannot reach origin' });
    expect(stoppedByError(new TypeError("Cannot read properties of undefined (reading 'id')\n    at x"))).toEqual({
      why: 'internal',
      message: "internal error: Cannot read properties of undefined (reading 'id')",
    });
    expect(stoppedByError('boom')).toEqual({ why: 'internal', message: 'internal error: boom' });
  });

  it('stopped and uncertain notifications', () => {
    const stop = stoppedNotification({ why: 'target_red', message: 'main itself fails gate test' }, { target: 'main', at: AT });
    expect(stop).toMatchObject({ event: 'stopped', job: null, stopped: { why: 'target_red', message: 'main itself fails gate test' } });
    expect(notificationSchema.safeParse(stop).success).toBe(true);
    const uncertain = uncertainNotification(job('j-4', { state: 'uncertain', reason: 'landed_no_record' }), { target: 'main', at: AT });
    expect(uncertain).toMatchObject({ event: 'uncertain', job: { id: 'j-4', state: 'uncertain' } });
  });
});

describe('notifiersFor', () => {
  it('picks the entries whose `on` names the event, in policy order', () => {
    const policy = policySchema.parse({
      target: 'main',
      notify: [
        { on: ['failed', 'stopped'], run: ['notify-chat'] },
        { on: ['landed', 'failed'], run: 'gh api ...', timeoutSeconds: 5 },
      ],
    });
    expect(notifiersFor(policy.notify, 'failed').map((entry) => entry.run)).toEqual([['notify-chat'], 'gh api ...']);
    expect(notifiersFor(policy.notify, 'landed').map((entry) => entry.timeoutSeconds)).toEqual([5]);
    expect(notifiersFor(policy.notify, 'uncertain')).toEqual([]);
    expect(policy.notify[0]).toMatchObject({ timeoutSeconds: 30, env: {}, passEnv: [] });
  });

  it('refuses an unknown event and an empty `on`', () => {
    const bad = policySchema.safeParse({
      target: 'main',
      notify: [
        { on: ['merged'], run: 'x' },
        { on: [], run: 'x' },
      ],
    });
    expect(bad.success).toBe(false);
  });

  it('a policy may name exactly the events a notification is sent for (one list)', () => {
    const policy = policySchema.parse({ target: 'main', notify: [{ on: [...NOTIFICATION_EVENTS], run: 'x' }] });
    expect(policy.notify[0]?.on).toEqual(['landed', 'failed', 'uncertain', 'stopped']);
  });
});
