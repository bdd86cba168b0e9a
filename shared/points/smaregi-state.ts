import type { FollowUp, PointsEvent, ProcessOutcome, PurchaseEvent, RefundEvent } from '../events/index.js';
import { type OrderFacts, resolveTransaction, SmaregiError, type SmaregiTransaction } from '../smaregi/index.js';
import type { ProcessorDeps } from './deps.js';

type Fetched = { tx: SmaregiTransaction; outcome?: undefined } | { tx?: undefined; gone: boolean; outcome?: ProcessOutcome };

export interface Runners {
  purchase(event: PurchaseEvent): Promise<ProcessOutcome>;
  refund(event: RefundEvent): Promise<ProcessOutcome>;
}

/**
 * A Smaregi webhook names transactions only: fetch the transaction's current state, turn it into the
 * purchase and refunds that state earns (shared/smaregi/resolve.ts) and run them through the usual
 * protocol, in order. The first event's outcome is the answer, the others its `followUps`; an event
 * that must wait stops the rest and is the answer (its kind decides how long the message waits), so a
 * refund never runs ahead of its purchase here, and the next delivery finds the done ones duplicates.
 */
export async function processSmaregiState(deps: ProcessorDeps, thin: PurchaseEvent, run: Runners): Promise<ProcessOutcome> {
  const from = thin.stateFrom;
  if (!from) throw new Error('processSmaregiState needs an event with stateFrom');
  const client = deps.smaregi?.(thin.source);
  if (!client) {
    const reason = `source ${thin.source} reads its Smaregi transactions, but the worker has no Smaregi API access for it`;
    return { kind: 'configuration_error', action: 'retry', errorKind: 'smaregi_not_configured', reason };
  }
  const fetched = await fetch(client, from.transactionHeadId);
  const order = await orderFacts(deps, thin.source, from.transactionHeadId);
  if (!fetched.tx) {
    if (fetched.outcome) return fetched.outcome;
    // Gone (deleted): it earns nothing now. Recorded: take back what it earned; never seen: nothing to do.
    if (!order) return { kind: 'skipped', action: 'ack', reason: 'transaction_gone' };
    return run.refund(goneRefund(thin, from.transactionHeadId, from.refundTitle));
  }
  const link = fetched.tx.disposeDivision === '2' ? fetched.tx.disposeServerTransactionHeadId : undefined;
  let original: { tx: SmaregiTransaction; order: OrderFacts | undefined } | undefined;
  if (link && link !== fetched.tx.transactionHeadId) {
    const o = await fetch(client, link);
    if (o.outcome) return o.outcome;
    if (o.tx) original = { tx: o.tx, order: await orderFacts(deps, thin.source, link) };
  }
  const settings = { ...from, externalKey: from.externalKey };
  const resolution = resolveTransaction(thin, settings, fetched.tx, { order, ...(original ? { original } : {}) });
  if (resolution.note)
    deps.logger?.warn('smaregi transaction state not fully applied', { transactionHeadId: from.transactionHeadId, note: resolution.note });
  return runInOrder(resolution.events, run);
}

async function runInOrder(events: PointsEvent[], run: Runners): Promise<ProcessOutcome> {
  let first: ProcessOutcome | undefined;
  const followUps: FollowUp[] = [];
  for (const event of events) {
    const outcome = event.type === 'purchase' ? await run.purchase(event) : await run.refund(event);
    // The message comes back for what must wait (its kind decides the deferral); what is done stays done.
    if (outcome.action === 'retry') return outcome;
    if (!first) {
      first = outcome;
      continue;
    }
    followUps.push({
      refundId: event.type === 'refund' ? event.refundId : event.orderId,
      kind: outcome.kind,
      action: outcome.action,
      ...('points' in outcome && typeof outcome.points === 'number' && outcome.points >= 0 ? { points: outcome.points } : {}),
    });
  }
  if (!first) return { kind: 'skipped', action: 'ack', reason: 'amount_zero' };
  if (followUps.length === 0) return first;
  return { ...first, followUps: [...('followUps' in first && first.followUps ? first.followUps : []), ...followUps] } as ProcessOutcome;
}

async function fetch(client: { getTransaction(id: string): Promise<SmaregiTransaction> }, id: string): Promise<Fetched> {
  try {
    return { tx: await client.getTransaction(id) };
  } catch (e) {
    if (!(e instanceof SmaregiError)) throw e;
    if (e.kind === 'not_found') return { gone: true };
    const errorKind = `smaregi_${e.kind}`;
    // Smaregi down or throttling: wait like any upstream; anything else needs people (credentials, scopes, contract).
    if (e.kind === 'unavailable')
      return { gone: false, outcome: { kind: 'upstream_error', action: 'retry', errorKind, reason: e.message } };
    return { gone: false, outcome: { kind: 'configuration_error', action: 'retry', errorKind, reason: e.message } };
  }
}

async function orderFacts(deps: ProcessorDeps, source: string, orderId: string): Promise<OrderFacts | undefined> {
  const order = await deps.ledger.getOrder({ source, orderId });
  if (!order) return undefined;
  return { state: order.state, outcome: order.outcome, eligibleExact: order.eligibleExact, refundIds: order.refundIds };
}

function goneRefund(thin: PurchaseEvent, orderId: string, refundTitle: string): RefundEvent {
  return {
    type: 'refund',
    eventId: `${thin.source}:refund:${orderId}:cancel`,
    source: thin.source,
    orderId,
    refundId: 'cancel',
    customer: null,
    currency: 'JPY',
    occurredAt: thin.occurredAt,
    pointTitle: refundTitle.replaceAll('{order}', orderId).replaceAll('{orderId}', orderId).replaceAll('{source}', thin.source),
    test: false,
    delivery: thin.delivery,
    refundAmount: 0,
    refundsRemainder: true,
  };
}
