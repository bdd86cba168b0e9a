import { describe, expect, it } from 'vitest';
import { runYearEnd } from '../../../chaos/year-end/cli.js';

const KEYS = [
  'receipts',
  'arrival_per_s',
  'bound_per_s',
  'throughput_per_s',
  'max_calls_per_minute',
  'oldest_s',
  'drained_s',
  'mismatches',
  'unfinished',
  'dead_lettered',
];

function tinyRun(extra: string[] = []): { code: number; lines: string[] } {
  const lines: string[] = [];
  const code = runYearEnd(['--scenario', 'year-end', '--rate', '2', '--minutes', '1', '--containers', '2', ...extra], (l) => lines.push(l));
  return { code, lines };
}

describe('npm run chaos -- --scenario year-end', () => {
  it('ends with the year-end line, its keys in the agreed order', () => {
    const { lines } = tinyRun();
    const last = lines.at(-1) as string;
    expect(last.startsWith('year-end: ')).toBe(true);
    const pairs = last.slice('year-end: '.length).split(' ');
    expect(pairs.map((p) => p.split('=')[0])).toEqual(KEYS);
    for (const p of pairs) expect(p).toMatch(/^[a-z_]+=\d+(\.\d+)?$/);
  });

  it('gives as B the whole budget over the calls a receipt takes on the busiest endpoint, the App Proxy’s reserve included', () => {
    // 1800 a minute over calculatePoints' 0.87 calls a receipt of the year-end mix; the workers' 90 % alone would be 31.0.
    const { lines } = tinyRun();
    expect(lines.at(-1)).toContain(' bound_per_s=34.5 ');
    expect(lines.some((l) => l.includes("the workers' share alone (the App Proxy's reserve unlent) 31.0/s on calculatePoints"))).toBe(true);
  });

  it('passes a tiny run with every receipt credited exactly once and none left behind', () => {
    const { code, lines } = tinyRun();
    expect(lines.at(-1)).toMatch(/ mismatches=0 unfinished=0 dead_lettered=0$/);
    expect(code).toBe(0);
  });

  it('prints the cost per million receipts at Tokyo prices by default', () => {
    const { lines } = tinyRun();
    expect(lines.some((l) => l.startsWith('cost per 1M receipts at ap-northeast-1 prices'))).toBe(true);
    expect(lines.some((l) => /^ {2}total +\$\d+\.\d\d$/.test(l))).toBe(true);
  });

  it('never lets an endpoint take more calls in a minute than the budget, over every container', () => {
    const lines: string[] = [];
    runYearEnd(['--scenario', 'year-end', '--rate', '20', '--minutes', '3', '--containers', '6', '--budget', '300'], (l) => lines.push(l));
    const max = Number(/max_calls_per_minute=(\d+)/.exec(lines.at(-1) as string)?.[1]);
    expect(max).toBeGreaterThan(0);
    expect(max).toBeLessThanOrEqual(300);
  });

  it('finishes the receipts of each till and each web customer in the order they were sent, crashes and deferrals included', () => {
    const lines: string[] = [];
    const code = runYearEnd(
      ['--scenario', 'year-end', '--rate', '20', '--minutes', '3', '--containers', '6', '--budget', '300', '--crash-rate', '0.2'],
      (l) => lines.push(l),
    );
    expect(lines).toContain("receipts done out of their FIFO group's order: 0");
    expect(code).toBe(0);
  });

  it('refuses an option it does not know, saying which, and runs nothing', () => {
    const { code, lines } = tinyRun(['--rates', '3']);
    expect(code).toBe(2);
    expect(lines.join('\n')).toContain("Unknown option '--rates'");
    expect(lines.some((l) => l.startsWith('year-end:'))).toBe(false);
  });

  it('refuses a rate that is not a positive number', () => {
    const lines: string[] = [];
    const code = runYearEnd(['--scenario', 'year-end', '--rate', '0'], (l) => lines.push(l));
    expect(code).toBe(2);
    expect(lines.join('\n')).toContain('--rate "0" is not valid');
  });
});
