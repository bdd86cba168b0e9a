import { performance } from 'node:perf_hooks';
import { fetchToken } from '../worker/harness.js';
import {
  CLIENT_TIMEOUT_MS,
  comparisonEmulatorConfig,
  expectedCredit,
  FAULT_KINDS,
  type FaultKind,
  type PlannedPurchase,
  planPurchases,
} from './plan.js';
import { armCalculationFault, readBalance, startSideServers } from './servers.js';
import { bridgeSide, COMPARISON_CLIENT, type CrashLine, powertoolsSide, type Side } from './sides.js';

/**
 * Runs the bridge and the Powertools handler, one after the other, each on its own fresh emulator and
 * dynalite, through the same seeded list of purchases and the same fault for each. Purchases go one at
 * a time (a concurrent delivery is two copies at once), so each armed emulator fault hits the purchase
 * it was armed for. Credits are read back from the emulator afterwards, against the model.
 */

export interface SideFigures {
  events: number;
  doubled: number;
  lost: number;
  dynamoWritesPerPurchase: number;
  upstreamCallsPerPurchase: number;
  p50Ms: number;
  deliveries: number;
  deadLettered: number;
  /** DynamoDB requests by operation, as the counting proxy saw them. */
  dynamoOperations: Record<string, number>;
  /** Per fault kind: purchases, doubled and lost credits, DynamoDB writes and upstream calls (totals). */
  byKind: Record<string, KindFigures>;
  /** After each purchase of the run, in order: doubled and lost credits so far. */
  cumulative: Array<{ doubled: number; lost: number }>;
}

export interface KindFigures {
  events: number;
  doubled: number;
  lost: number;
  dynamoWrites: number;
  upstreamCalls: number;
}

export interface ComparisonFigures {
  seed: number;
  /** The planned purchases' order ids with their fault kinds: the same list for both sides. */
  plan: Array<{ orderId: string; kind: FaultKind }>;
  bridge: SideFigures;
  powertools: SideFigures;
}

const MAX_DELIVERIES = 8;
const round = (n: number) => Math.round(n * 100) / 100;

function percentile50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : round(sorted[Math.floor((sorted.length - 1) / 2)] as number);
}

/** Delivers until acknowledged (or the receive budget is spent: dead-lettered); the first attempt may die. */
async function deliverUntilDone(side: Side, p: PlannedPurchase, tally: { deliveries: number; ms: number[] }, crash?: CrashLine) {
  for (let n = 1; n <= MAX_DELIVERIES; n += 1) {
    tally.deliveries += 1;
    const started = performance.now();
    const ok = await side.attempt(p, n === 1 ? crash : undefined);
    if (ok) {
      tally.ms.push(performance.now() - started);
      return true;
    }
    await side.beforeRedelivery();
  }
  return false;
}

async function deliver(side: Side, p: PlannedPurchase, emulatorUrl: string, tally: { deliveries: number; ms: number[] }): Promise<boolean> {
  switch (p.kind) {
    case 'duplicate':
      return (await deliverUntilDone(side, p, tally)) && (await deliverUntilDone(side, p, tally));
    case 'concurrent':
      return (await Promise.all([deliverUntilDone(side, p, tally), deliverUntilDone(side, p, tally)])).every(Boolean);
    case 'error_500':
    case 'reset_before':
    case 'reset_after_commit':
      await armCalculationFault(emulatorUrl, p.kind);
      return deliverUntilDone(side, p, tally);
    case 'delay':
      // Held past the client's timeout: the grant is made, the caller sees a timeout.
      await armCalculationFault(emulatorUrl, 'delay', CLIENT_TIMEOUT_MS * 2);
      return deliverUntilDone(side, p, tally);
    case 'crash_before_call':
      return deliverUntilDone(side, p, tally, 'before-call');
    case 'crash_after_call':
      return deliverUntilDone(side, p, tally, 'after-call');
    case 'timeout':
      // The grant's answer is slow (within the client's timeout) and the function's time runs out while it
      // waits: the attempt dies right after the grant, before anything is recorded; the redelivery comes
      // once the lease / in-progress record has lapsed.
      await armCalculationFault(emulatorUrl, 'delay', CLIENT_TIMEOUT_MS / 2);
      return deliverUntilDone(side, p, tally, 'after-call');
    default:
      return deliverUntilDone(side, p, tally);
  }
}

export async function runSide(
  name: Side['name'],
  plan: PlannedPurchase[],
  seed: number,
  log: (line: string) => void = () => undefined,
): Promise<SideFigures> {
  const table = `${name}-compare-${seed}-${process.pid}`;
  const servers = await startSideServers(comparisonEmulatorConfig(plan, COMPARISON_CLIENT), table);
  try {
    const side = name === 'bridge' ? await bridgeSide(servers) : await powertoolsSide(servers, `${table}-idempotency`);
    servers.operations.clear();
    const tally = { deliveries: 0, ms: [] as number[] };
    let deadLettered = 0;
    const byKind: Record<string, KindFigures> = Object.fromEntries(
      FAULT_KINDS.map((k) => [k, { events: 0, doubled: 0, lost: 0, dynamoWrites: 0, upstreamCalls: 0 }]),
    );
    for (const p of plan) {
      const before = { writes: servers.dynamoWrites(), calls: await servers.upstreamCalls(COMPARISON_CLIENT.id) };
      if (!(await deliver(side, p, servers.emulatorUrl, tally))) deadLettered += 1;
      const k = byKind[p.kind] as KindFigures;
      k.dynamoWrites += servers.dynamoWrites() - before.writes;
      k.upstreamCalls += (await servers.upstreamCalls(COMPARISON_CLIENT.id)) - before.calls;
    }
    // Counted before the balances are read (the reads are calls too).
    const upstream = await servers.upstreamCalls(COMPARISON_CLIENT.id);
    const writes = servers.dynamoWrites();
    const operations = Object.fromEntries(servers.operations);
    const token = await fetchToken(servers.emulatorUrl, COMPARISON_CLIENT);
    const cumulative: SideFigures['cumulative'] = [];
    let doubled = 0;
    let lost = 0;
    for (const p of plan) {
      const balance = await readBalance(servers.emulatorUrl, token, p.externalId);
      const credit = expectedCredit(p);
      if (balance % credit !== 0n) throw new Error(`${name}: ${p.orderId} balance ${balance} is not a multiple of its credit ${credit}`);
      const credits = Number(balance / credit);
      const k = byKind[p.kind] as KindFigures;
      k.events += 1;
      k.doubled += Math.max(0, credits - 1);
      k.lost += credits === 0 ? 1 : 0;
      doubled += Math.max(0, credits - 1);
      lost += credits === 0 ? 1 : 0;
      cumulative.push({ doubled, lost });
    }
    log(`comparison: ${name} ${plan.length} purchases, doubled ${doubled}, lost ${lost}, ${tally.deliveries} deliveries`);
    return {
      events: plan.length,
      doubled,
      lost,
      dynamoWritesPerPurchase: round(writes / plan.length),
      upstreamCallsPerPurchase: round(upstream / plan.length),
      p50Ms: percentile50(tally.ms),
      deliveries: tally.deliveries,
      deadLettered,
      dynamoOperations: operations,
      byKind,
      cumulative,
    };
  } finally {
    await servers.stop();
  }
}

export async function runComparison(options: { events: number; seed: number; log?: (line: string) => void }): Promise<ComparisonFigures> {
  const plan = planPurchases(options.events, options.seed);
  const bridge = await runSide('bridge', plan, options.seed, options.log);
  const powertools = await runSide('powertools', plan, options.seed, options.log);
  return { seed: options.seed, plan: plan.map((p) => ({ orderId: p.orderId, kind: p.kind })), bridge, powertools };
}
