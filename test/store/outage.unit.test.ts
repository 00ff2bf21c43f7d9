// The schedule a drainer rides out an outage of its queue's remote with, and the two lines it says
// about it, as plain values (a clock the test moves). The drainer end to end: test/store/remote/outage.test.ts.
import { describe, expect, it } from 'vitest';
import { LandError } from '../../lib/errors.js';
import { nextRetry, OutageNotice } from '../../lib/store/outage.js';

const LIMITS = { leaseSeconds: 60, pollSeconds: 5 };

describe('nextRetry', () => {
  it('waits 0.5 s, then twice as long each time, at most pollSeconds', () => {
    const waits = [1, 2, 3, 4, 5, 6, 40].map((failures) => nextRetry(failures, 1_000, LIMITS));
    expect(waits).toEqual([500, 1_000, 2_000, 4_000, 5_000, 5_000, 5_000].map((waitMs) => ({ kind: 'retry', waitMs })));
  });

  it('never waits longer than pollSeconds, even a short one', () => {
    expect(nextRetry(1, 0, { leaseSeconds: 6, pollSeconds: 0.2 })).toEqual({ kind: 'retry', waitMs: 200 });
  });

  it('never waits past the end of the lease (the last try comes right at it), then gives up', () => {
    expect(nextRetry(6, 58_500, LIMITS)).toEqual({ kind: 'retry', waitMs: 1_500 });
    expect(nextRetry(1, 59_999.5, LIMITS)).toEqual({ kind: 'retry', waitMs: 1 });
    expect(nextRetry(1, 60_000, LIMITS)).toEqual({ kind: 'give_up' });
    expect(nextRetry(9, 75_000, LIMITS)).toEqual({ kind: 'give_up' });
  });
});

describe('OutageNotice', () => {
  it('says once that the remote is unreachable and once that it is back; counts from the last answer', () => {
    let now = 1_000;
    const lines: string[] = [];
    const notice = new OutageNotice(
      'origin',
      60,
      (line) => lines.push(line),
      () => now,
    );
    now += 2_000;
    expect(notice.sinceContactMs()).toBe(2_000);
    notice.unreachable("'/srv/app.git' does not appear to be a git repository");
    now += 500;
    notice.unreachable('again');
    now += 1_800;
    expect(notice.sinceContactMs()).toBe(4_300);
    notice.reached();
    notice.reached();
    expect(notice.sinceContactMs()).toBe(0);
    expect(lines).toEqual([
      "land: the queue's remote origin is unreachable; retrying for up to 60 s: '/srv/app.git' does not appear to be a git repository\n",
      "land: the queue's remote origin is reachable again (after 2.3 s)\n",
    ]);
  });

  it('a failure of an attempt that started before the remote last answered is no new outage', () => {
    let now = 0;
    const lines: string[] = [];
    const notice = new OutageNotice(
      'origin',
      60,
      (line) => lines.push(line),
      () => now,
    );
    notice.unreachable('down');
    const renewal = notice.clock(); // a renewal push starts during the outage
    now += 1_000;
    notice.reached(); // a fetch gets through: the outage is over
    now += 200;
    notice.unreachable('down', renewal); // the renewal's failure comes after: old news
    expect(lines).toHaveLength(2);
    notice.unreachable('down again', notice.clock()); // an attempt started after the answer: a new outage
    expect(lines.at(-1)).toMatch(/unreachable; retrying for up to 60 s: down again/);
  });

  it('gives up with exit 13 (remote), naming the remote, the time and the reason', () => {
    const error = new OutageNotice('origin', 6, () => undefined).gaveUp('connection refused');
    expect(error).toBeInstanceOf(LandError);
    expect(error.code).toBe('remote');
    expect(error.message).toBe("the queue's remote origin could not be reached for 6 s (queue.leaseSeconds): connection refused");
  });
});
