// Slot choice: free slots on executors that are offered a train, spread over hosts, away from the
// executor a train's last run was INFRA on when another can take it.
import { describe, expect, it } from 'vitest';
import { chooseSlot, type SlotAsk } from '../../../lib/landing/executors/choose.js';
import { ALL_UP, markDown } from '../../../lib/landing/executors/health.js';
import type { Executor } from '../../../lib/landing/executors/slots.js';
import { sshExecutor } from '../../helpers/executors.js';

const ssh = sshExecutor;
const local: Executor = { kind: 'local', name: 'local', slots: 1 };
const executors = [local, ssh('b1', 2), ssh('b2', 2)];

function pick(ask: Partial<SlotAsk>): string {
  const choice = chooseSlot({ executors, busy: new Map(), health: ALL_UP, now: 0, ...ask });
  return choice.kind === 'slot' ? choice.executor.name : choice.kind;
}

describe('chooseSlot', () => {
  it('takes the executor with the most free slots, ties in policy order', () => {
    expect(pick({})).toBe('b1');
    expect(pick({ busy: new Map([['b1', 1]]) })).toBe('b2');
    expect(
      pick({
        busy: new Map([
          ['b1', 1],
          ['b2', 1],
        ]),
      }),
    ).toBe('local');
    expect(
      pick({
        busy: new Map([
          ['local', 1],
          ['b1', 2],
          ['b2', 2],
        ]),
      }),
    ).toBe('busy');
  });

  it('skips a down executor until its time is up', () => {
    const health = markDown(ALL_UP, 'b1', 0, 'refused');
    expect(pick({ health, now: 1_000 })).toBe('b2');
    expect(
      pick({
        health,
        now: 1_000,
        busy: new Map([
          ['b2', 2],
          ['local', 1],
        ]),
      }),
    ).toBe('busy');
    expect(pick({ health, now: 30_000 })).toBe('b1');
  });

  it('retries a train elsewhere after an INFRA run, and there again when nowhere else is free', () => {
    expect(pick({ avoid: 'b1' })).toBe('b2');
    expect(
      pick({
        avoid: 'b1',
        busy: new Map([
          ['b2', 2],
          ['local', 1],
        ]),
      }),
    ).toBe('b1');
  });

  it('says when every executor is down, and until when', () => {
    let health = markDown(ALL_UP, 'b1', 0, 'x');
    health = markDown(health, 'b2', 5_000, 'x');
    health = markDown(health, 'local', 1_000, 'x');
    expect(chooseSlot({ executors, busy: new Map(), health, now: 2_000 })).toEqual({ kind: 'all_down', until: 30_000 });
  });
});
