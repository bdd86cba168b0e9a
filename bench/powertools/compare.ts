import { performance } from 'node:perf_hooks';
import { fetchToken } from '../worker/harness.js';
import { countEvent } from './count.js';
import {
  BUSY_ENTRIES,
  CLIENT_TIMEOUT_MS,
  comparisonEmulatorConfig,
  FAULT_KINDS,
  type FaultKind,
  faultMix,
  type HistoryEntry,
  type PlannedEvent,
  planEvents,
  pointsLeftFor,
} from './plan.js';
import { addBusyEntries, armGrantFault, grantOpeningBalance, readHistory, spendDownTo, startSideServers } from './servers.js';
import { bridgeSide, COMPARISON_CLIENT, type CrashLine, powertoolsSide, type Side, type SideName } from './sides.js';

/**
 * Runs the bridge, the Powertools handlers and the Powertools handlers with a history check, one after the other, each on its own fresh emulator and
 * dynalite, through the same seeded list of purchases and refunds and the same fault for each. Events go
 * one at a time (a concurrent delivery is two copies at once), so each armed emulator fault hits the event
 * it was armed for. Credits and debits are read back from the emulator's point histories afterwards,
 * against the model.
 */

export interface SideFigures {
  /** Purchases and refunds. */
  events: number;
  /** Credits doubled + debits doubled. */
  doubled: number;
  /** Credits lost + debits lost. */
  lost: number;
  dynamoWritesPerPurchase: number;
  upstreamCallsPerPurchase: number;
  purchases: number;
  refunds: number;
  doubledCredits: number;
  lostCredits: number;
  doubledDebits: number;
  lostDebits: number;
  /** Credits or debits of another amount than the model's (neither doubled nor lost). */
  wrongAmounts: number;
  dynamoWritesPerRefund: number;
  upstreamCallsPerRefund: number;
  /** Of acknowledged deliveries, purchases and refunds. */
  p50Ms: number;
  deliveries: number;
  deadLettered: number;
  /** DynamoDB requests by operation, as the counting proxy saw them. */
  dynamoOperations: Record<string, number>;
  /** Per event type and fault kind: events, doubled and lost, DynamoDB writes and upstream calls (totals). */
  byKind: Record<PlannedEvent['type'], Record<string, KindFigures>>;
  /** After each event of the run, in order: doubled and lost credits and debits so far. */
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
  /** The planned events with their fault kinds: the same list for every side. */
  plan: Array<{ type: PlannedEvent['type']; orderId: string; refundId?: string; kind: FaultKind }>;
  /** Events per type and kind, and the share whose first attempt ends with an unknown outcome. */
  faultMix: ReturnType<typeof faultMix>;
  bridge: SideFigures;
  powertools: SideFigures;
  powertoolsHistory: SideFigures;
}

const MAX_DELIVERIES = 8;
const round = (n: number) => Math.round(n * 100) / 100;

function percentile50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : round(sorted[Math.floor((sorted.length - 1) / 2)] as number);
}

/** Delivers until acknowledged (or the receive budget is spent: dead-lettered); the first attempt may die. */
async function deliverUntilDone(
  side: Side,
  p: PlannedEvent,
  tally: { deliveries: number; ms: number[] },
  crash?: CrashLine,
  /** Runs between a failed first attempt and its redelivery (a busy account's entries). */
  meanwhile?: () => Promise<void>,
) {
  for (let n = 1; n <= MAX_DELIVERIES; n += 1) {
    tally.deliveries += 1;
    const started = performance.now();
    const ok = await side.attempt(p, n === 1 ? crash : undefined, n);
    if (ok) {
      tally.ms.push(performance.now() - started);
      return true;
    }
    if (n === 1) await meanwhile?.();
    await side.beforeRedelivery();
  }
  return false;
}

interface Reach {
  emulatorUrl: string;
  token: string;
  /** Requests the bench itself made to the emulator under the comparison's client (not the side's calls). */
  own: { calls: number };
}

async function deliver(side: Side, p: PlannedEvent, reach: Reach, tally: { deliveries: number; ms: number[] }): Promise<boolean> {
  const { emulatorUrl } = reach;
  const call = p.type === 'purchase' ? 'calculation' : 'grant';
  switch (p.kind) {
    case 'duplicate':
      return (await deliverUntilDone(side, p, tally)) && (await deliverUntilDone(side, p, tally));
    case 'concurrent':
      return (await Promise.all([deliverUntilDone(side, p, tally), deliverUntilDone(side, p, tally)])).every(Boolean);
    case 'error_500':
    case 'reset_before':
    case 'reset_after_commit':
      await armGrantFault(emulatorUrl, call, p.kind);
      return deliverUntilDone(side, p, tally);
    case 'delay':
      // Held past the client's timeout: the grant is made, the caller sees a timeout.
      await armGrantFault(emulatorUrl, call, 'delay', CLIENT_TIMEOUT_MS * 2);
      return deliverUntilDone(side, p, tally);
    case 'crash_before_call':
      return deliverUntilDone(side, p, tally, 'before-call');
    case 'crash_after_call':
      return deliverUntilDone(side, p, tally, 'after-call');
    case 'timeout':
      // The grant's answer is slow (within the client's timeout) and the function's time runs out while it
      // waits: the attempt dies right after the grant, before anything is recorded; the redelivery comes
      // once the lease / in-progress record has lapsed.
      await armGrantFault(emulatorUrl, call, 'delay', CLIENT_TIMEOUT_MS / 2);
      return deliverUntilDone(side, p, tally, 'after-call');
    case 'busy_member':
      // The grant commits, the attempt dies after it; more than a page of newer entries come before the retry.
      return deliverUntilDone(side, p, tally, 'after-call', async () => {
        reach.own.calls += await addBusyEntries(emulatorUrl, reach.token, p.externalId, BUSY_ENTRIES);
      });
    case 'insufficient':
      // The member spent all but half the debit at the till before the refund came.
      if (p.type === 'refund') reach.own.calls += await spendDownTo(emulatorUrl, reach.token, p.externalId, pointsLeftFor(p));
      return deliverUntilDone(side, p, tally);
    default:
      return deliverUntilDone(side, p, tally);
  }
}

const emptyKinds = (): Record<string, KindFigures> =>
  Object.fromEntries(FAULT_KINDS.map((k) => [k, { events: 0, doubled: 0, lost: 0, dynamoWrites: 0, upstreamCalls: 0 }]));

/** Delivers every planned event in order; the writes and calls each one cost go to its kind. */
async function deliverAll(side: Side, plan: PlannedEvent[], servers: Awaited<ReturnType<typeof startSideServers>>, token: string) {
  const tally = { deliveries: 0, ms: [] as number[] };
  const byKind = { purchase: emptyKinds(), refund: emptyKinds() };
  let deadLettered = 0;
  for (const e of plan) {
    const before = { writes: servers.dynamoWrites(), calls: await servers.upstreamCalls(COMPARISON_CLIENT.id) };
    const own = { calls: 0 };
    if (!(await deliver(side, e, { emulatorUrl: servers.emulatorUrl, token, own }, tally))) deadLettered += 1;
    const k = byKind[e.type][e.kind] as KindFigures;
    k.dynamoWrites += servers.dynamoWrites() - before.writes;
    k.upstreamCalls += (await servers.upstreamCalls(COMPARISON_CLIENT.id)) - before.calls - own.calls;
  }
  return { tally, byKind, deadLettered };
}

const perEvent = (kinds: Record<string, KindFigures>, count: number, key: 'dynamoWrites' | 'upstreamCalls') =>
  round(Object.values(kinds).reduce((n, k) => n + k[key], 0) / Math.max(1, count));

export async function runSide(
  name: SideName,
  plan: PlannedEvent[],
  seed: number,
  log: (line: string) => void = () => undefined,
): Promise<SideFigures> {
  const table = `${name}-compare-${seed}-${process.pid}`;
  const servers = await startSideServers(comparisonEmulatorConfig(plan, COMPARISON_CLIENT), table);
  try {
    const side =
      name === 'bridge' ? await bridgeSide(servers) : await powertoolsSide(servers, `${table}-idempotency`, name === 'powertoolsHistory');
    const token = await fetchToken(servers.emulatorUrl, COMPARISON_CLIENT);
    for (const e of plan) if (e.type === 'purchase') await grantOpeningBalance(servers.emulatorUrl, token, e.externalId);
    servers.operations.clear();
    const { tally, byKind, deadLettered } = await deliverAll(side, plan, servers, token);
    const operations = Object.fromEntries(servers.operations);
    // The histories are read after each event's calls were counted (the reads are calls too).
    const histories = new Map<string, HistoryEntry[]>();
    const count = { doubledCredits: 0, lostCredits: 0, doubledDebits: 0, lostDebits: 0, wrongAmounts: 0 };
    const cumulative: SideFigures['cumulative'] = [];
    for (const e of plan) {
      const history = histories.get(e.externalId) ?? (await readHistory(servers.emulatorUrl, token, e.externalId));
      histories.set(e.externalId, history);
      const c = countEvent(e, history);
      const k = byKind[e.type][e.kind] as KindFigures;
      k.events += 1;
      k.doubled += c.doubled;
      k.lost += c.lost;
      count.wrongAmounts += c.wrongAmounts;
      if (e.type === 'purchase') {
        count.doubledCredits += c.doubled;
        count.lostCredits += c.lost;
      } else {
        count.doubledDebits += c.doubled;
        count.lostDebits += c.lost;
      }
      cumulative.push({ doubled: count.doubledCredits + count.doubledDebits, lost: count.lostCredits + count.lostDebits });
    }
    const purchases = plan.filter((e) => e.type === 'purchase').length;
    const refunds = plan.length - purchases;
    const doubled = count.doubledCredits + count.doubledDebits;
    const lost = count.lostCredits + count.lostDebits;
    log(
      `comparison: ${name} ${purchases} purchases + ${refunds} refunds, doubled ${doubled}, lost ${lost}, ${tally.deliveries} deliveries`,
    );
    return {
      events: plan.length,
      doubled,
      lost,
      dynamoWritesPerPurchase: perEvent(byKind.purchase, purchases, 'dynamoWrites'),
      upstreamCallsPerPurchase: perEvent(byKind.purchase, purchases, 'upstreamCalls'),
      purchases,
      refunds,
      ...count,
      dynamoWritesPerRefund: perEvent(byKind.refund, refunds, 'dynamoWrites'),
      upstreamCallsPerRefund: perEvent(byKind.refund, refunds, 'upstreamCalls'),
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

/** `purchases` purchases and as many refunds, the same list through the three sides. */
export async function runComparison(options: {
  purchases: number;
  seed: number;
  log?: (line: string) => void;
}): Promise<ComparisonFigures> {
  const plan = planEvents(options.purchases, options.seed);
  const bridge = await runSide('bridge', plan, options.seed, options.log);
  const powertools = await runSide('powertools', plan, options.seed, options.log);
  const powertoolsHistory = await runSide('powertoolsHistory', plan, options.seed, options.log);
  const listed = plan.map((e) => ({
    type: e.type,
    orderId: e.orderId,
    ...(e.type === 'refund' ? { refundId: e.refundId } : {}),
    kind: e.kind,
  }));
  return { seed: options.seed, plan: listed, faultMix: faultMix(plan), bridge, powertools, powertoolsHistory };
}
