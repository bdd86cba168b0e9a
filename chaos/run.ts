/**
 * `npm run chaos -- --events N --seed S [--fault-rate P] [--crash-rate P] [--outage SECONDS] [--redrive]`:
 * one seeded chaos run through the real receiver, queue and worker against the emulator and dynalite,
 * with `npm start`'s own timing defaults. Prints the report; the last line is
 * `chaos: events=N faults=F mismatches=M unfinished=U dead_lettered=D latency_p99_ours_s=X … late_commits=L reversed=R`; exit code 1
 * when M, U or D is not 0. With `--seeds A..B --repeat M` instead of `--seed`: a sweep (sweep.ts).
 */
import { parseArgs } from 'node:util';
import { createLostDeliveries } from './lost-deliveries.js';
import { formatReport } from './report.js';
import type { OutageFault } from './outage.js';
import { type ChaosOptions, runChaos } from './runner.js';
import { parseSeedRange, runSweep } from './sweep.js';
import { runYearEnd } from './year-end/cli.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const USAGE =
  'usage: npm run chaos -- --events N (--seed S | --seeds A..B [--repeat M] [--reports DIR]) [--fault-rate 0..1] [--crash-rate 0..1] [--senders N] [--outage SECONDS [--outage-fault error_500|reset_before]] [--gateway SECONDS] [--redrive] [--lost-deliveries 0..1] [--no-smaregi-reconcile] [--no-late-commits]';

function numberOption(value: string | undefined, name: string, fallback: number, check: (n: number) => boolean): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || !check(n)) {
    console.error(`chaos: --${name} ${JSON.stringify(value)} is not valid\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

async function main(): Promise<void> {
  // The year-end sale is a model of its own, with its own options (year-end/cli.ts).
  if (process.argv.includes('--scenario')) {
    process.exitCode = runYearEnd(process.argv.slice(2), (line) => console.log(line));
    return;
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        events: { type: 'string' },
        seed: { type: 'string' },
        'fault-rate': { type: 'string' },
        'crash-rate': { type: 'string' },
        senders: { type: 'string' },
        outage: { type: 'string' },
        'outage-fault': { type: 'string' },
        gateway: { type: 'string' },
        redrive: { type: 'boolean' },
        'lost-deliveries': { type: 'string' },
        'no-smaregi-reconcile': { type: 'boolean' },
        'no-late-commits': { type: 'boolean' },
        seeds: { type: 'string' },
        repeat: { type: 'string' },
        reports: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`chaos: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const str = (key: string) => (typeof values[key] === 'string' ? (values[key] as string) : undefined);
  const isPositiveInt = (n: number) => Number.isInteger(n) && n > 0;
  const isRate = (n: number) => n >= 0 && n <= 1;
  const events = numberOption(str('events'), 'events', 300, isPositiveInt);
  const seed = numberOption(str('seed'), 'seed', 1, (n) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff);
  // Share of Shopify events never sent as webhooks; the run reconciles with the Admin API stand-in.
  const lostRate = numberOption(str('lost-deliveries'), 'lost-deliveries', 0, isRate);
  const options = (seed: number): ChaosOptions => ({
    ...(lostRate > 0 ? { lostDeliveries: createLostDeliveries({ rate: lostRate, seed, repair: true }) } : {}),
    events,
    seed,
    faultRate: numberOption(str('fault-rate'), 'fault-rate', 0.25, isRate),
    crashRate: numberOption(str('crash-rate'), 'crash-rate', 0.03, isRate),
    senders: numberOption(str('senders'), 'senders', 4, isPositiveInt),
    outageSeconds: numberOption(str('outage'), 'outage', 0, (n) => Number.isInteger(n) && n >= 0 && n <= 7 * 86_400),
    ...outageFault(str('outage-fault')),
    gatewaySeconds: numberOption(str('gateway'), 'gateway', 0, (n) => Number.isInteger(n) && n >= 0 && n <= 86_400),
    redrive: values.redrive === true,
    // The Smaregi missed edits stay unreconciled: the run must report them as mismatches.
    ...(values['no-smaregi-reconcile'] === true ? { smaregiReconcile: false } : {}),
    // Without late commits and history lag (late-commits.ts): the faults of before issue 50.
    ...(values['no-late-commits'] === true ? { lateCommits: false } : {}),
    drainTimeoutMs: Math.max(120_000, events * 400),
    log: (line) => console.log(line),
  });
  const seeds = str('seeds');
  if (seeds !== undefined) {
    const range = parseSeedRange(seeds);
    if (!range || str('seed') !== undefined) {
      console.error(`chaos: --seeds ${JSON.stringify(seeds)} is not valid (A..B, without --seed)\n${USAGE}`);
      process.exit(2);
    }
    const swept = await runSweep({
      seeds: range,
      repeat: numberOption(str('repeat'), 'repeat', 1, isPositiveInt),
      reportsDir: str('reports') ?? 'chaos-reports',
      events,
      runOne: (runSeed, log) => runChaos({ ...options(runSeed), log }),
      out: (line) => console.log(line),
      progress: (line) => console.error(line),
    });
    process.exitCode = swept.failed === 0 ? 0 : 1;
    return;
  }
  if (str('repeat') !== undefined || str('reports') !== undefined) {
    console.error(`chaos: --repeat and --reports go with --seeds\n${USAGE}`);
    process.exit(2);
  }
  const result = await runChaos(options(seed));
  for (const line of formatReport(result)) console.log(line);
  process.exitCode = result.mismatches.length === 0 && result.unfinished.length === 0 && result.deadLettered === 0 ? 0 : 1;
}

function outageFault(text: string | undefined): { outageFault?: OutageFault } {
  if (text === undefined) return {};
  if (text !== 'error_500' && text !== 'reset_before') {
    console.error(`chaos: --outage-fault ${JSON.stringify(text)} is not valid\n${USAGE}`);
    process.exit(2);
  }
  return { outageFault: text };
}

main().catch((error: unknown) => {
  console.error(`chaos: run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
