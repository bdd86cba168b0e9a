/**
 * `npm run chaos -- --scenario year-end [--rate R] [--minutes M] [--containers N] [--budget B] [--seed S] [--region R]`:
 * the year-end model (simulate.ts), its report and cost; the last line is the `year-end:` line. Exit
 * code 1 when a receipt is mismatched, unfinished or dead-lettered, or done before an earlier one of
 * its FIFO group, or a minute took more calls on an endpoint than the budget.
 */
import { parseArgs } from 'node:util';
import { type PriceRegion, REGION_PRICES } from '../../kit/cost.js';
import { formatYearEnd } from './report.js';
import { simulateYearEnd, YEAR_END_DEFAULTS, type YearEndOptions } from './simulate.js';

export const YEAR_END_USAGE =
  'usage: npm run chaos -- --scenario year-end [--rate R] [--minutes M] [--containers N] [--budget PER_MINUTE] [--seed S] [--fault-rate 0..1] [--crash-rate 0..1] [--region ap-northeast-1|us-east-1]';

export class UsageError extends Error {
  readonly kind = 'usage';
}

/** Options from the command line (everything after `--scenario year-end` included); throws UsageError. */
export function parseYearEndArgs(args: string[]): { options: YearEndOptions; region: PriceRegion } {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        scenario: { type: 'string' },
        rate: { type: 'string' },
        minutes: { type: 'string' },
        containers: { type: 'string' },
        budget: { type: 'string' },
        seed: { type: 'string' },
        'fault-rate': { type: 'string' },
        'crash-rate': { type: 'string' },
        region: { type: 'string' },
      },
      strict: true,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const num = (key: string, fallback: number, check: (n: number) => boolean): number => {
    const text = values[key];
    if (typeof text !== 'string') return fallback;
    const n = Number(text);
    if (text.trim() === '' || !Number.isFinite(n) || !check(n)) throw new UsageError(`--${key} ${JSON.stringify(text)} is not valid`);
    return n;
  };
  const positiveInt = (n: number) => Number.isInteger(n) && n > 0;
  const share = (n: number) => n >= 0 && n <= 1;
  const region = (values.region as string | undefined) ?? 'ap-northeast-1';
  if (!(region in REGION_PRICES)) throw new UsageError(`--region ${JSON.stringify(region)} has no price list in bench/cost.ts`);
  const d = YEAR_END_DEFAULTS;
  return {
    region: region as PriceRegion,
    options: {
      ...d,
      ratePerSecond: num('rate', d.ratePerSecond, (n) => n > 0 && n <= 1_000),
      minutes: num('minutes', d.minutes, (n) => n > 0 && n <= 24 * 60),
      containers: num('containers', d.containers, (n) => positiveInt(n) && n <= 1_000),
      budgetPerMinute: num('budget', d.budgetPerMinute, (n) => Number.isInteger(n) && n >= 10 && n <= 2_000),
      seed: num('seed', d.seed, (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff),
      faultRate: num('fault-rate', d.faultRate, share),
      crashRate: num('crash-rate', d.crashRate, share),
    },
  };
}

export function runYearEnd(args: string[], out: (line: string) => void): number {
  let parsed: ReturnType<typeof parseYearEndArgs>;
  try {
    parsed = parseYearEndArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    out(`chaos: ${error.message}\n${YEAR_END_USAGE}`);
    return 2;
  }
  const started = performance.now();
  const result = simulateYearEnd(parsed.options);
  const wall = (performance.now() - started) / 1000;
  for (const line of formatYearEnd(result, parsed.region, REGION_PRICES[parsed.region], wall)) out(line);
  const overBudget = [...result.maxCallsPerMinute].some(([e, n]) => e !== 'token' && n > parsed.options.budgetPerMinute);
  return result.mismatches === 0 && result.unfinished === 0 && result.deadLettered === 0 && result.outOfOrder === 0 && !overBudget ? 0 : 1;
}
