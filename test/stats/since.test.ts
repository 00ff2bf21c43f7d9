import { describe, expect, it } from 'vitest';
import { LandError } from '../../lib/errors.js';
import { parseSince } from '../../lib/stats/since.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');

describe('parseSince', () => {
  it('takes spans back from now', () => {
    expect(parseSince('90m', NOW)).toBe(NOW - 90 * 60_000);
    expect(parseSince('24h', NOW)).toBe(NOW - 86_400_000);
    expect(parseSince('7d', NOW)).toBe(NOW - 7 * 86_400_000);
    expect(parseSince('2w', NOW)).toBe(NOW - 14 * 86_400_000);
  });

  it('takes ISO dates and times', () => {
    expect(parseSince('2026-11-01T00:00:00Z', NOW)).toBe(Date.parse('2026-11-01T00:00:00Z'));
    expect(parseSince('2026-11-01T10:30Z', NOW)).toBe(Date.parse('2026-11-01T10:30Z'));
    expect(parseSince('2026-11-01', NOW)).toBe(Date.parse('2026-11-01'));
    // Without a zone a date and time is UTC, whatever the machine's zone.
    expect(parseSince('2026-11-01T10:30', NOW)).toBe(Date.parse('2026-11-01T10:30Z'));
    expect(parseSince('2026-11-01 10:30:15', NOW)).toBe(Date.parse('2026-11-01T10:30:15Z'));
    expect(parseSince('2026-11-01T10:30+02:00', NOW)).toBe(Date.parse('2026-11-01T08:30Z'));
  });

  it('refuses anything else with a usage error that names the value', () => {
    for (const bad of ['yesterday', '7', '7y', '-1d', '2026-13-01', '2026-12-25', '', '1d; rm -rf /']) {
      let error: unknown = null;
      try {
        parseSince(bad, NOW);
      } catch (caught) {
        error = caught;
      }
      expect(error, bad).toBeInstanceOf(LandError);
      expect((error as LandError).code).toBe('usage');
      expect((error as LandError).message).toContain('--since');
    }
  });
});
