import { describe, expect, it } from 'vitest';
import { parseInstant, parseRange, progressPrinter } from '../../../ops/audit.js';

const NOW = Date.parse('2026-11-23T00:00:00Z');

describe('the audit time range', () => {
  it('takes a duration back from now', () => {
    expect(parseInstant('3d', '--since', NOW)).toBe(Date.parse('2026-11-20T00:00:00Z'));
    expect(parseInstant('12h', '--since', NOW)).toBe(Date.parse('2026-11-22T12:00:00Z'));
  });

  it('takes an ISO date or date-time', () => {
    expect(parseRange({ since: '2026-11-01', until: '2026-11-02T09:00:00Z' }, NOW)).toEqual({
      from: Date.parse('2026-11-01T00:00:00Z'),
      to: Date.parse('2026-11-02T09:00:00Z'),
    });
  });

  it('defaults to everything', () => {
    expect(parseRange({}, NOW)).toEqual({});
  });

  it('refuses a range that ends before it starts', () => {
    expect(() => parseRange({ since: '1d', until: '2d' }, NOW)).toThrow('--since must be before --until');
  });
});

describe('the audit progress', () => {
  it('prints at most every 2 seconds, and the last step of a run that printed any', () => {
    let now = 0;
    const lines: string[] = [];
    const p = progressPrinter(
      (l) => lines.push(l),
      2000,
      () => now,
    );
    p.progress({ customersDone: 1, customers: 3, historyPages: 1 });
    now = 2500;
    p.progress({ customersDone: 2, customers: 3, historyPages: 4 });
    now = 2600;
    p.progress({ customersDone: 3, customers: 3, historyPages: 5 });
    expect(lines).toEqual([
      'audit: read the point history of 2/3 customers (4 pages)',
      'audit: read the point history of 3/3 customers (5 pages)',
    ]);
  });

  it('prints nothing on a short run', () => {
    const lines: string[] = [];
    const p = progressPrinter(
      (l) => lines.push(l),
      2000,
      () => 0,
    );
    p.progress({ customersDone: 1, customers: 1, historyPages: 1 });
    expect(lines).toEqual([]);
  });
});
