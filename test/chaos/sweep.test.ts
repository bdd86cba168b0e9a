import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyTally } from '../../chaos/faults.js';
import type { ChaosResult } from '../../chaos/report.js';
import { generateScenario } from '../../chaos/scenario.js';
import { parseSeedRange, runSweep } from '../../chaos/sweep.js';

/** A run's result as the report reads it: passing unless told otherwise. */
function result(seed: number, overrides: Partial<ChaosResult> = {}): ChaosResult {
  const latency = { events: 1, p50Seconds: 1, p99Seconds: 2, maxSeconds: 2, slowest: undefined, slowestEvents: [] };
  return {
    seed,
    scenario: { ...generateScenario({ events: 40, seed }).counts, events: 40, deliveries: 45, customers: 10 },
    faults: emptyTally(),
    points: { expected: { credited: 0, debited: 0 }, observed: { credited: 0, debited: 0 } },
    outcomes: {},
    queue: { deadLettered: 0, redriven: 0, received: 0, sent: 0, deduplicated: 0, deferrals: 0 },
    deadLettered: 0,
    timing: {},
    simulatedSeconds: 1,
    holdBack: { behindReturn: { sales: 0, maxSeconds: 0, p50Seconds: 0 }, otherSales: { sales: 0, maxSeconds: 0, p50Seconds: 0 } },
    latency: {
      ...latency,
      heldBack: { messages: 0, maxSeconds: 0, over5s: 0 },
      settledSeconds: 0,
      parked: 0,
      p99OursSeconds: 2,
      slowestOurs: [],
      awaitingPerson: { events: 0, p99Seconds: 0, maxSeconds: 0 },
    },
    disturbances: [],
    upstreamRequests: {},
    mismatches: [],
    evidence: [],
    unfinished: [],
    durationMs: 1,
    ...overrides,
  };
}

describe('the chaos sweep', () => {
  it('reads A..B and a single seed, and refuses a range that runs backwards or is not numbers', () => {
    expect(parseSeedRange('3..12')).toEqual({ from: 3, to: 12 });
    expect(parseSeedRange('7')).toEqual({ from: 7, to: 7 });
    expect(parseSeedRange('12..3')).toBeUndefined();
    expect(parseSeedRange('a..b')).toBeUndefined();
  });

  it('runs every seed of the range the number of times asked, one at a time, and prints one line per failing run with its seed, events and report', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sweep-'));
    const scenario = generateScenario({ events: 40, seed: 2 });
    const order = scenario.events.find((e) => e.kind === 'purchase');
    const ran: number[] = [];
    let running = 0;
    const out: string[] = [];
    const swept = await runSweep({
      seeds: { from: 1, to: 3 },
      repeat: 2,
      reportsDir: dir,
      events: 40,
      runOne: async (seed, log) => {
        expect(running).toBe(0);
        running += 1;
        ran.push(seed);
        log(`ran seed ${seed}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        running -= 1;
        if (seed !== 2 || ran.filter((s) => s === 2).length !== 1) return result(seed);
        return result(seed, {
          unfinished: [{ key: 'shopify:customer:1:linked', why: 'in the dead-letter list' }],
          mismatches: [{ customer: 4, orderId: order?.orderId ?? '', what: 'purchase outcome customer_not_found, expected credited' }],
          deadLettered: 1,
        });
      },
      out: (line) => out.push(line),
    });

    expect(ran).toEqual([1, 1, 2, 2, 3, 3]);
    expect(swept).toMatchObject({ runs: 6, failed: 1 });
    const file = join(dir, 'seed-2-run-1-FAILED.txt');
    expect(out[0]).toBe(
      `sweep: seed=2 run=1/2 mismatches=1 unfinished=1 dead_lettered=1 events=shopify:customer:1:linked,${order?.key} report=${file}`,
    );
    expect(out[1]).toMatch(/^sweep: seeds=1\.\.3 repeat=2 runs=6 failed=1 wall_s=\d+$/);
    expect(await readFile(join(dir, 'seed-3-run-2.txt'), 'utf8')).toContain('ran seed 3');
    const report = await readFile(file, 'utf8');
    expect(report).toContain('ran seed 2');
    expect(report).toContain('chaos: events=40 faults=0 mismatches=1 unfinished=1 dead_lettered=1 latency_p99_ours_s=2');
  });

  it("gives each run's wall time, set-up included, in its progress line and at the top of its report", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sweep-'));
    let clock = 0;
    const progress: string[] = [];
    await runSweep({
      seeds: { from: 4, to: 4 },
      repeat: 2,
      reportsDir: dir,
      events: 40,
      runOne: async (seed) => {
        clock += 150_000;
        return result(seed);
      },
      out: () => undefined,
      progress: (line) => progress.push(line),
      now: () => clock,
    });
    expect(progress.map((line) => /^sweep: seed 4 run (\d\/2) run_wall_s=(\d+): chaos: /.exec(line)?.slice(1))).toEqual([
      ['1/2', '150'],
      ['2/2', '150'],
    ]);
    expect((await readFile(join(dir, 'seed-4-run-2.txt'), 'utf8')).split('\n')[0]).toBe('sweep: seed 4 run 2/2 run_wall_s=150');
  });
});
