import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatReport, type ChaosResult } from './report.js';
import { generateScenario } from './scenario.js';

/**
 * `npm run chaos -- --seeds A..B --repeat M`: every seed of the range, each M times, one run at a time
 * (a seed fixes the plan, not the timing, so a repeat may meet another interleaving). One line per
 * failing run on stdout, with its seed and the events that did not end as modelled; the full report of
 * every run in a file of its own (a failing run's named `…-FAILED.txt`); a closing line with the counts
 * and the wall time.
 */

export interface SeedRange {
  from: number;
  to: number;
}

/** `A..B` (or one seed `A`), inclusive, A <= B; undefined when it is not that. */
export function parseSeedRange(text: string): SeedRange | undefined {
  const match = /^(\d+)(?:\.\.(\d+))?$/.exec(text.trim());
  if (!match?.[1]) return undefined;
  const from = Number(match[1]);
  const to = Number(match[2] ?? match[1]);
  const seed = (n: number) => Number.isSafeInteger(n) && n <= 0xffffffff;
  return seed(from) && seed(to) && from <= to ? { from, to } : undefined;
}

export interface SweepOptions {
  seeds: SeedRange;
  repeat: number;
  /** Where the reports of failing runs go (created if missing). */
  reportsDir: string;
  /** Events per run (the scenario of a seed names the orders of a mismatch). */
  events: number;
  /** One run of a seed, its progress lines to `log`: `runChaos` with the command's options. */
  runOne: (seed: number, log: (line: string) => void) => Promise<ChaosResult>;
  /** The sweep's lines (failing runs, the closing line). */
  out: (line: string) => void;
  /** Progress (each run's verdict): not part of the sweep's output. */
  progress?: (line: string) => void;
  now?: () => number;
}

export interface SweepResult {
  runs: number;
  failed: number;
  wallSeconds: number;
}

export async function runSweep(options: SweepOptions): Promise<SweepResult> {
  const now = options.now ?? Date.now;
  const started = now();
  await mkdir(options.reportsDir, { recursive: true });
  let runs = 0;
  let failed = 0;
  for (let seed = options.seeds.from; seed <= options.seeds.to; seed += 1) {
    for (let repeat = 1; repeat <= options.repeat; repeat += 1) {
      const runLog: string[] = [];
      const runStarted = now();
      const result = await options.runOne(seed, (line) => runLog.push(line));
      // The run's wall time, its stack's set-up and close included (the issue: at most 5 minutes a run here).
      const runWall = `run_wall_s=${Math.round((now() - runStarted) / 1000)}`;
      runLog.unshift(`sweep: seed ${seed} run ${repeat}/${options.repeat} ${runWall}`);
      runs += 1;
      const report = formatReport(result);
      options.progress?.(`sweep: seed ${seed} run ${repeat}/${options.repeat} ${runWall}: ${report.at(-1) ?? ''}`);
      // Every run's report is kept (a passing run's latency is worth reading too); failing ones are named.
      const bad = failedRun(result);
      const file = join(options.reportsDir, `seed-${seed}-run-${repeat}${bad ? '-FAILED' : ''}.txt`);
      await writeFile(file, `${[...runLog, ...formatReport(result, Number.POSITIVE_INFINITY)].join('\n')}\n`);
      if (!bad) continue;
      failed += 1;
      options.out(failingLine(result, repeat, options.repeat, file, options.events));
    }
  }
  const wallSeconds = (now() - started) / 1000;
  const range = `${options.seeds.from}..${options.seeds.to}`;
  options.out(`sweep: seeds=${range} repeat=${options.repeat} runs=${runs} failed=${failed} wall_s=${Math.round(wallSeconds)}`);
  return { runs, failed, wallSeconds };
}

export function failedRun(result: Pick<ChaosResult, 'mismatches' | 'unfinished' | 'deadLettered'>): boolean {
  return result.mismatches.length > 0 || result.unfinished.length > 0 || result.deadLettered > 0;
}

/** `sweep: seed=S run=R/M mismatches=… unfinished=… dead_lettered=… events=<ids> report=<file>`. */
export function failingLine(result: ChaosResult, repeat: number, repeats: number, file: string, events: number): string {
  const ids = notAsModelled(result, events);
  return (
    `sweep: seed=${result.seed} run=${repeat}/${repeats} mismatches=${result.mismatches.length} ` +
    `unfinished=${result.unfinished.length} dead_lettered=${result.deadLettered} events=${ids.join(',') || '-'} report=${file}`
  );
}

/**
 * The ids of the events that did not end as modelled: the unfinished ones (their event keys, or
 * `link`/`redaction` for a customer request), and every event of an order with a mismatch; a balance
 * mismatch with no order names its customer (`customer:N`).
 */
export function notAsModelled(result: Pick<ChaosResult, 'seed' | 'mismatches' | 'unfinished'>, events: number): string[] {
  const ids = new Set(result.unfinished.map((u) => u.key));
  const orderIds = new Set(result.mismatches.flatMap((m) => (m.orderId ? [m.orderId] : [])));
  if (orderIds.size > 0) {
    // The seed gives the same scenario: its events name the orders.
    for (const e of generateScenario({ events, seed: result.seed }).events) if (orderIds.has(e.orderId)) ids.add(e.key);
  }
  for (const m of result.mismatches) if (!m.orderId) ids.add(`customer:${m.customer ?? '-'}`);
  return [...ids];
}
