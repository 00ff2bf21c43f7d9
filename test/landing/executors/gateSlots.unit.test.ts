// The drain's gate slots: each train holds a numbered slot of an executor until it gives it back;
// a train waits while every offered slot is busy, and avoids an executor that was just lost.
import { describe, expect, it } from 'vitest';
import { GateSlots } from '../../../lib/landing/executors/gateSlots.js';
import { sshExecutor } from '../../helpers/executors.js';

const ssh = sshExecutor;
const executors = [ssh('b1', 2), ssh('b2', 1)];
const never = new AbortController().signal;

describe('GateSlots', () => {
  it('numbers each executor’s slots, spreads trains, and makes a train wait for a slot given back', async () => {
    const slots = new GateSlots({ program: 'ssh', config: undefined });
    const a = await slots.take(executors, undefined, never);
    const b = await slots.take(executors, undefined, never);
    const c = await slots.take(executors, undefined, never);
    expect([a, b, c].map((t) => `${t?.executor.name}/${t?.slot}`)).toEqual(['b1/0', 'b1/1', 'b2/0']); // most free slots first, ties in policy order
    let waited: string | null = null;
    const d = slots.take(executors, undefined, never).then((t) => (waited = `${t?.executor.name}/${t?.slot}`));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(waited).toBeNull();
    slots.give(a as NonNullable<typeof a>);
    await d;
    expect(waited).toBe('b1/0');
  });

  it('avoids an executor marked down, and gives up the wait when the drain stops', async () => {
    let now = 1_000;
    const slots = new GateSlots({ program: 'ssh', config: undefined }, () => now);
    slots.down('b1', 'unreachable');
    expect((await slots.take(executors, undefined, never))?.executor.name).toBe('b2');
    const stop = new AbortController();
    const waiting = slots.take(executors, undefined, stop.signal); // b1 down, b2 full
    stop.abort();
    expect(await waiting).toBeNull();
    now += 31_000; // down for 30 s after a first failure: tried again
    expect((await slots.take(executors, undefined, never))?.executor.name).toBe('b1');
  });
});
