import { describe, expect, it } from 'vitest';
import type { FaultSpec } from '../../chaos/emulator-admin.js';
import { createFaultInjector, WORKER_ROUTES } from '../../chaos/faults.js';
import {
  BEYOND_EXTRA_MAX_MS,
  BEYOND_EXTRA_MIN_MS,
  createLateCommits,
  drawLagPlan,
  drawLateCommit,
  INSIDE_MAX_MS,
  INSIDE_MIN_MS,
  LAG_MAX_MS,
  LATE_COMMIT_ROUTE_NAMES,
  lateCommitSpec,
  SAFETY_MS,
} from '../../chaos/late-commits.js';
import { createRandom } from '../../chaos/prng.js';
import { createSimClock } from '../../chaos/sim-clock.js';

/** Late commits and a lagging history in the chaos runs: the draws, the faults armed, the clock's cap. */

const HORIZON_MS = 120_000;
const draws = (seed: number, n: number) => {
  const random = createRandom(seed);
  return Array.from({ length: n }, () => drawLateCommit(random, HORIZON_MS));
};

function lateCommits(clock = createSimClock(), patches: Record<string, unknown>[] = []) {
  return createLateCommits({
    admin: { patchClient: async (_id, patch) => void patches.push(patch) },
    clientId: 'chaos-client',
    clock,
    horizonMs: HORIZON_MS,
    random: createRandom(5),
    routeRequests: async () => ({}),
    log: () => undefined,
  });
}

/** The specs an injector arms over `deliveries` deliveries, with every fault drawn (no route pacing). */
async function armedSpecs(seed: number, deliveries: number): Promise<FaultSpec[]> {
  const specs: FaultSpec[] = [];
  const admin = {
    addFault: async (spec: FaultSpec) => {
      specs.push(spec);
      return { id: String(specs.length) };
    },
  };
  const injector = createFaultInjector(createRandom(seed).fork('run'), admin as never, {
    faultRate: 1,
    crashRate: 0,
    clientTimeoutMs: 1000,
    lateCommits: lateCommits(),
  });
  for (let i = 0; i < deliveries; i += 1) await injector.maybeArm();
  return specs;
}

describe('late commits in the chaos runs', () => {
  it('draws the same late commits for the same seed and others for another', () => {
    expect(draws(7, 50)).toEqual(draws(7, 50));
    expect(draws(8, 50)).not.toEqual(draws(7, 50));
  });

  it('answers with a reset, no answer, or an HTML 500, 502 or 504, and applies the request later', () => {
    const drawn = draws(1, 400);
    expect(new Set(drawn.map((d) => d.answer))).toEqual(new Set(['reset', 'hold', 'status']));
    expect(new Set(drawn.flatMap((d) => (d.status ? [d.status] : [])))).toEqual(new Set([500, 502, 504]));
    const spec = lateCommitSpec(WORKER_ROUTES[3], { answer: 'status', status: 502, commitAfterMs: 900, beyond: false });
    expect(spec).toMatchObject({ fault: 'late_commit', answer: 'status', status: 502, commit_after_ms: 900, times: 1 });
    expect(spec).toMatchObject({ headers: { 'content-type': 'text/html' } });
    expect((spec as { body: string }).body).toContain('<h1>502 Bad Gateway</h1>');
  });

  it('draws most delays inside the horizon and a few beyond it by more real time than the horizon itself', () => {
    const drawn = draws(3, 1000);
    const beyond = drawn.filter((d) => d.beyond);
    expect(beyond.length).toBeGreaterThan(50);
    expect(beyond.length).toBeLessThan(150);
    for (const d of drawn) {
      if (d.beyond) expect(d.commitAfterMs).toBeGreaterThanOrEqual(HORIZON_MS + BEYOND_EXTRA_MIN_MS);
      else expect(d.commitAfterMs).toBeGreaterThanOrEqual(INSIDE_MIN_MS);
      expect(d.commitAfterMs).toBeLessThanOrEqual(d.beyond ? HORIZON_MS + BEYOND_EXTRA_MAX_MS : INSIDE_MAX_MS);
    }
  });

  it('draws none beyond the horizon where they are not allowed, and the same draws otherwise', () => {
    const random = createRandom(3);
    const inside = Array.from({ length: 200 }, () => drawLateCommit(random, HORIZON_MS, false));
    expect(inside.filter((d) => d.beyond)).toEqual([]);
    const both = draws(3, 200);
    expect(inside.map((d) => d.answer)).toEqual(both.map((d) => d.answer));
  });

  it('draws the same history lag for the same seed, always below the horizon', () => {
    const plan = drawLagPlan(createRandom(11));
    expect(drawLagPlan(createRandom(11))).toEqual(plan);
    expect(plan.some((ms) => ms === 0)).toBe(true);
    expect(plan.some((ms) => ms > 0)).toBe(true);
    for (const ms of plan) expect(ms).toBeLessThanOrEqual(LAG_MAX_MS);
  });

  it('arms late commits beside the other faults only on the routes that move points, the same for the same seed', async () => {
    const specs = await armedSpecs(4, 300);
    expect(await armedSpecs(4, 300)).toEqual(specs);
    const late = specs.filter((s) => s.fault === 'late_commit');
    expect(late.length).toBeGreaterThan(10);
    expect(specs.length - late.length).toBeGreaterThan(late.length * 4);
    const pointRoutes = WORKER_ROUTES.filter((r) => (LATE_COMMIT_ROUTE_NAMES as readonly string[]).includes(r.name)).map((r) => r.path);
    for (const s of late) expect(pointRoutes).toContain(s.path);
  });

  it('keeps the simulated clock from running past the horizon while a commit inside it may still land', () => {
    const clock = createSimClock();
    lateCommits(clock);
    const start = clock.now();
    clock.jump(3_600_000);
    expect(clock.now() - start).toBeLessThanOrEqual(HORIZON_MS - SAFETY_MS + 1000);
    expect(clock.now() - start).toBeGreaterThan(HORIZON_MS / 2);
    // Right after, no further jump than the real time since (the cap moves with real time: a busy machine
    // may let a few ms pass between the two jumps), far less than the 60 s asked.
    expect(clock.jump(60_000)).toBeLessThan(5_000);
  });

  it('sets the history lag at its planned deliveries and takes it off after the drain', async () => {
    const patches: Record<string, unknown>[] = [];
    const late = lateCommits(createSimClock(), patches);
    for (let position = 0; position < 1000; position += 1) await late.beforeDelivery(position, 1000);
    expect(patches.length).toBeGreaterThan(0);
    await late.afterDrain();
    expect(patches.at(-1)).toEqual({ history_lag_ms: 0 });
    expect(late.report().lagChanges).toBe(patches.length);
  });
});
