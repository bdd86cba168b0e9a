import { depsFromEnv, makeHandler } from '../functions/reconcile-smaregi.js';
import type { Mismatch } from './compare.js';
import type { Disturbance } from './disturbance.js';
import { debitTotalFor, type Model, pointsFor } from './model.js';
import { CHAOS_RANKS, type Scenario } from './scenario.js';
import { smaregiTillCases } from './smaregi.js';
import type { ChaosStack } from './stack.js';

/**
 * Missed edits (issue 39 item 8): staff lower a credited Smaregi sale's amount and Smaregi never sends
 * the `edited` webhook (¥11,000 → ¥5,500). Only the scheduled reconcile (functions/reconcile-smaregi.ts,
 * the stage's handler, with the stack's own SOURCES_CONFIG and SMAREGI access) can find it: it runs at
 * three points during the deliveries and twice once the queue is drained, before the verdict.
 *
 * The plan is fixed by the scenario: credited Smaregi sales delivered once, never voided, neither
 * late-member nor paid in points (smaregi.ts), every second one by id, halved. A sale is edited at the
 * first reconcile point at which the ledger shows it credited (so no delivery of it is still to come
 * and put the old amount back), the rest after the drain. The model takes a lowering edit as the refund
 * of the amount taken off (its rule: floor(credit x off / eligible)), and only sales where that leaves
 * exactly what the edited amount earns (floor(edited x rate)) are chosen, so the member ends with the
 * edited figure by either reading. The verdict checks it twice: the compare (one credit, debits adding
 * up to the edit's, at most one debit entry more than the order's refunds) and the ledger's `adj-<off>`
 * refund, debited with exactly that figure.
 */

export interface MissedEdit {
  orderId: string;
  customer: number;
  /** Eligible amount (without tax) as sold, and as edited. */
  amount: number;
  editedTo: number;
  credit: number;
  /** What the edit takes back: credit less what the edited amount earns. */
  debit: number;
}

/** The edit is stamped this long after the sale: the reconcile reads again only sales changed a minute or more after they were made. */
const EDIT_LAG_MS = 2 * 60_000;
/**
 * Runs of the schedule are at least this far apart (its shortest `everyMinutes`), on the run's simulated
 * clock: the SQS FIFO deduplication window (5 minutes) drops a second run's message for the same
 * transaction (delivery id `reconcile:<id>`), so an edit made after a run queued its sale could not be
 * found by a run within 5 minutes of it (the next run finds it: a delay, not a loss). A reconcile
 * point sooner than this after the last run is skipped; after the drain the idle clock is moved on to it.
 */
const SCHEDULE_GAP_MS = 5 * 60_000;
/** Reconcile points during the deliveries, as shares of them. */
const POINTS = [0.25, 0.5, 0.75];

export function planMissedEdits(scenario: Scenario, model: Model): MissedEdit[] {
  const cases = smaregiTillCases(scenario);
  const excluded = new Set([...cases.lateMembers, ...cases.spends]);
  const edits: MissedEdit[] = [];
  for (const [index, e] of scenario.events.entries()) {
    if (e.kind !== 'purchase' || e.source !== 'smaregi' || e.customer === null || excluded.has(e.orderId)) continue;
    const order = model.orders.get(e.orderId);
    const customer = scenario.customers[e.customer];
    if (!order?.credited || !customer || order.refundIds.length > 0 || BigInt(e.orderId) % 2n !== 0n) continue;
    if (scenario.deliveries.filter((d) => d.event === index).length !== 1) continue;
    const editedTo = Math.floor(e.amount / 2);
    const debit = debitTotalFor(order.credit, e.amount, e.amount - editedTo);
    if (debit <= 0 || order.credit - debit !== pointsFor(editedTo, CHAOS_RANKS[customer.rank])) continue;
    edits.push({ orderId: e.orderId, customer: e.customer, amount: e.amount, editedTo, credit: order.credit, debit });
  }
  return edits;
}

/** The model after the edits: each one a refund `adj` of its sale taking back `debit`. */
export function applyMissedEdits(model: Model, edits: readonly MissedEdit[]): void {
  for (const edit of edits) {
    const order = model.orders.get(edit.orderId);
    const customer = model.customers.get(edit.customer);
    if (!order || !customer) continue;
    order.refundIds.push('adj');
    order.debitTotal += edit.debit;
    customer.debited += edit.debit;
    customer.balance -= edit.debit;
    model.totals.debited += edit.debit;
  }
}

export interface MissedEditsOptions {
  edits: readonly MissedEdit[];
  stack: Pick<ChaosStack, 'ledger' | 'queue' | 'handlerEnv' | 'clock' | 'isIdle'>;
  /** The stand-in's transaction as the sender last put it (smaregi.ts). */
  posted: (orderId: string) => Record<string, unknown> | undefined;
  /** Post a transaction's new state to the stand-in (no webhook). */
  put: (transaction: Record<string, unknown>) => Promise<void>;
  /** false (`--no-smaregi-reconcile`): the edits happen, nothing reconciles (the run must then fail). */
  reconcile: boolean;
  log: (line: string) => void;
}

export type MissedEdits = Disturbance & { check(): Promise<Mismatch[]> };

export function createMissedEdits(o: MissedEditsOptions): MissedEdits {
  const source = 'smaregi';
  const env = o.stack.handlerEnv;
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const deps = depsFromEnv(env, {
    ledger: o.stack.ledger,
    queue: o.stack.queue,
    logger: quiet,
    metrics: { addMetric: () => undefined, addDimension: () => undefined, publishStoredMetrics: () => undefined },
    // The schedule's run once the edits have settled: its window ends `settleMinutes` before its now.
    now: () => new Date(Date.now() + EDIT_LAG_MS + (deps.settings(source)?.reconcile.settleMinutes ?? 10) * 60_000),
  });
  const handler = makeHandler(deps);
  const edited = new Set<string>();
  const tally = { midRun: 0, runs: 0, skipped: 0, failedRuns: 0, enqueued: 0, lastMissing: -1 };
  let lastRunAt: number | undefined;
  const due = () => lastRunAt === undefined || o.stack.clock.now() - lastRunAt >= SCHEDULE_GAP_MS;
  const points = new Set<number>();

  async function edit(onlyCredited: boolean): Promise<number> {
    let n = 0;
    for (const e of o.edits) {
      if (edited.has(e.orderId)) continue;
      const order = await o.stack.ledger.getOrder({ source, orderId: e.orderId });
      const last = o.posted(e.orderId);
      if (!last || (onlyCredited && !(order?.state === 'done' && order.outcome === 'credited'))) continue;
      await o.put(lowered(last, e.editedTo));
      edited.add(e.orderId);
      n += 1;
    }
    return n;
  }

  async function reconcile(): Promise<void> {
    if (!o.reconcile) return;
    if (!due()) {
      tally.skipped += 1;
      return;
    }
    lastRunAt = o.stack.clock.now();
    // EventBridge retries a failed run twice (the stand-in's 429s and 503s fly during the run).
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        const r = await handler({ source });
        tally.runs += 1;
        tally.enqueued += r.enqueued;
        tally.lastMissing = r.missing;
        o.log(`chaos: smaregi reconcile: scanned=${r.scanned} missing=${r.missing} enqueued=${r.enqueued}`);
        return;
      } catch (error) {
        tally.failedRuns += 1;
        o.log(`chaos: smaregi reconcile failed: ${(error as Error).message}`);
      }
    }
  }

  /** Waits until the queue is empty, then moves the idle clock on to the schedule's next run. */
  async function idle(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = o.stack.queue.stats();
      if ((s.runningBatches === 0 && s.visible + s.processing + s.waitingRetry === 0) || Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const wait = lastRunAt === undefined ? 0 : lastRunAt + SCHEDULE_GAP_MS - o.stack.clock.now();
    if (wait > 0 && o.stack.isIdle()) o.stack.clock.jump(wait);
  }

  return {
    name: 'smaregi missed edits',
    async beforeDelivery(position, total) {
      if (points.size === 0) for (const share of POINTS) points.add(Math.floor(total * share));
      if (!points.has(position) || position === 0) return;
      tally.midRun += await edit(true);
      await reconcile();
    },
    tick: async () => undefined,
    jumpLimit: () => undefined,
    holdsClock: () => false,
    async afterDrain() {
      await edit(false);
      // Twice: the first queues what it finds; the second, once that ran, must find nothing left.
      await idle(60_000);
      await reconcile();
      await idle(60_000);
      await reconcile();
      await idle(60_000);
      await (deps.client(source) as { close?: () => Promise<void> } | undefined)?.close?.();
    },
    reportLines: () => [
      `smaregi missed edits: ${edited.size} of ${o.edits.length} sales lowered with no webhook (${tally.midRun} during the deliveries); ` +
        (o.reconcile
          ? `reconcile runs ${tally.runs} (${tally.skipped} points skipped as sooner than the schedule allows, ${tally.failedRuns} failed attempts), enqueued ${tally.enqueued}, last run missing=${tally.lastMissing}`
          : 'reconcile disabled'),
    ],
    async check() {
      const mismatches: Mismatch[] = [];
      for (const e of o.edits) {
        const refund = await o.stack.ledger.getRefund({ source, orderId: e.orderId, refundId: `adj-${e.amount - e.editedTo}` });
        if (refund?.state === 'done' && refund.outcome === 'debited' && refund.pointsDebited === e.debit) continue;
        mismatches.push({
          customer: e.customer,
          orderId: e.orderId,
          what: `sale edited ${e.amount} -> ${e.editedTo} with no webhook: refund adj ${refund ? `${refund.state} ${refund.outcome ?? ''} ${refund.pointsDebited ?? ''}` : 'not recorded'}, expected debited ${e.debit}`,
        });
      }
      return mismatches;
    },
  };
}

/** The sale's transaction with its amount lowered to `amount` (tax inside, as smaregi.ts sells), changed EDIT_LAG_MS after it was made. */
function lowered(tx: Record<string, unknown>, amount: number): Record<string, unknown> {
  const tax = Math.floor(amount / 10);
  const gross = String(amount + tax);
  const details = (tx.details as Record<string, unknown>[]).map((d) => ({
    ...d,
    unitDiscountedSum: gross,
    taxIncludeProportional: String(tax),
  }));
  const updDateTime = new Date(Date.parse(String(tx.transactionDateTime)) + EDIT_LAG_MS).toISOString();
  return { ...tx, subtotal: gross, total: gross, taxInclude: String(tax), details, updDateTime };
}
