// The journal keeps who asked for a stop: `land why` tells it for a cancel and for a preemption.
import { describe, expect, it } from 'vitest';
import { stopRequestChange } from '../../lib/queue/changes.js';

describe('stopRequestChange', () => {
  it('journals who asked, for a cancel and for an urgent job stepping in', () => {
    expect(stopRequestChange('j-1', { kind: 'cancel', by: 'ann@example.com', forJob: null }).detail).toEqual({ kind: 'cancel', by: 'ann@example.com' });
    expect(stopRequestChange('j-1', { kind: 'preempt', by: 'bob@example.com', forJob: 'j-9' }).detail).toEqual({
      kind: 'preempt',
      by: 'bob@example.com',
      forJob: 'j-9',
    });
  });
});
