import type { FollowUp, PointsEvent, ProcessOutcome, PurchaseEvent, RefundEvent } from '../../events/index.js';
import type { CanonicalRun, ResolveDeps } from '../resolution.js';
import { readChain, remainderOf, type SaleChain } from './chain.js';
import type { SmaregiClient } from './client.js';
import { SmaregiError } from './errors.js';
import { mirrorBalance } from './mirror.js';
import { CANCEL_REFUND_ID, type ResolveFacts, resolveTransaction } from './resolve.js';
import { readSpends, type SpendStep, spendEvents } from './spend.js';
import type { SmaregiThinEvent } from './thin.js';
import { linkOf, type SmaregiTransaction } from './transaction.js';

/** The calls the worker makes to Smaregi: read a transaction, and (tillPoints membership) write a member's balance. */
export type SmaregiStateClient = Pick<SmaregiClient, 'getTransaction'> & Partial<Pick<SmaregiClient, 'setCustomerPoint'>>;

type Fetched = { tx: SmaregiTransaction; outcome?: undefined } | { tx?: undefined; gone: boolean; outcome?: ProcessOutcome };

type Runners = CanonicalRun;

/**
 * A Smaregi webhook names transactions only: fetch the transaction's current state, turn it into the
 * purchase and refunds that state earns (shared/sources/smaregi/resolve.ts) and run them through the usual
 * protocol, in order. The first event's outcome is the answer, the others its `followUps`; an event
 * that must wait stops the rest and is the answer (its kind decides how long the message waits), so a
 * refund never runs ahead of its purchase here, and the next delivery finds the done ones duplicates.
 */
export async function processSmaregiState(
  deps: ResolveDeps,
  client: SmaregiStateClient | undefined,
  thin: SmaregiThinEvent,
  run: Runners,
): Promise<ProcessOutcome> {
  const from = thin.stateFrom;
  if (!client) {
    const reason = `source ${thin.source} reads its Smaregi transactions, but the worker has no Smaregi API access for it`;
    return { kind: 'configuration_error', action: 'retry', errorKind: 'smaregi_not_configured', reason };
  }
  const fetched = await fetch(client, from.transactionHeadId);
  if (!fetched.tx) {
    if (fetched.outcome) return fetched.outcome;
    // Gone (deleted): it earns nothing now. Recorded: take back what it earned; never seen: nothing to do.
    const chain = await chainFacts(deps, thin.source, from.transactionHeadId);
    if (!chain.sale) return { kind: 'skipped', action: 'ack', reason: 'transaction_gone' };
    const cancel = goneRefund(thin, from.transactionHeadId, from.refundTitle);
    const key = { externalKey: from.externalKey, ...(from.memberLookup === 'unique_id' ? { lookup: 'unique_id' as const } : {}) };
    const spent = spendEvents(thin, from.transactionHeadId, await spendFacts(deps, thin, from.transactionHeadId), undefined, key).events;
    return runInOrder([cancel, ...chain.supplements.map((o) => remainderOf(cancel, o.orderId, CANCEL_REFUND_ID)), ...spent], run);
  }
  const tx = fetched.tx;
  const link = tx.disposeDivision === '2' || tx.returnSales === '1' ? linkOf(tx.disposeServerTransactionHeadId) : undefined;
  let original: SmaregiTransaction | undefined;
  if (link && link !== tx.transactionHeadId && tx.disposeDivision === '2') {
    const o = await fetch(client, link);
    if (o.outcome) return o.outcome;
    original = o.tx;
  }
  const settings = { ...from, externalKey: from.externalKey };
  // A raise runs its supplement first and takes back what it supersedes in the next round, once the
  // supplement is known credited (a supplement that fails must not cost the member the older credit).
  let answer: Ran | undefined;
  let sale: PurchaseEvent | undefined;
  for (let round = 0; round < 3; round++) {
    const linked = link && link !== tx.transactionHeadId ? link : undefined;
    const facts: ResolveFacts = {
      chain: await chainFacts(deps, thin.source, tx.transactionHeadId),
      ...(linked ? { linked: await chainFacts(deps, thin.source, linked), original } : {}),
      spends: await spendFacts(deps, thin, tx.transactionHeadId),
      ...(linked && tx.disposeDivision === '2' ? { linkedSpends: await spendFacts(deps, thin, linked) } : {}),
    };
    const resolution = resolveTransaction(thin, settings, tx, facts);
    if (resolution.note)
      deps.logger?.warn('smaregi transaction state not fully applied', {
        transactionHeadId: from.transactionHeadId,
        note: resolution.note,
      });
    sale = resolution.events.find((e): e is PurchaseEvent => e.type === 'purchase' && e.customer !== null && !e.orderId.includes('/'));
    const ran = await runEvents(resolution.events, run, answer !== undefined);
    if (ran.wait) return ran.wait;
    answer = answer ? { ...answer, followUps: [...answer.followUps, ...ran.followUps] } : ran;
    if (!resolution.again) break;
  }
  // The till knows only what Smaregi holds: the member's balance, as the membership service has it now.
  const smaregiCustomer = sale && (sale.orderId === tx.transactionHeadId ? tx : original)?.customerId;
  if (from.tillPoints === 'membership' && sale?.customer && smaregiCustomer)
    await mirrorBalance(deps, client, smaregiCustomer, sale.customer);
  return answerOf(answer);
}

interface Ran {
  first?: ProcessOutcome | undefined;
  followUps: FollowUp[];
  /** An event that must wait: it is the answer, and the rest did not run. */
  wait?: ProcessOutcome | undefined;
}

async function runInOrder(events: PointsEvent[], run: Runners): Promise<ProcessOutcome> {
  const ran = await runEvents(events, run, false);
  return ran.wait ?? answerOf(ran);
}

function answerOf(ran: Ran | undefined): ProcessOutcome {
  const first = ran?.first;
  if (!first) return { kind: 'skipped', action: 'ack', reason: 'amount_zero' };
  if (!ran.followUps.length) return first;
  return { ...first, followUps: [...('followUps' in first && first.followUps ? first.followUps : []), ...ran.followUps] } as ProcessOutcome;
}

/** Runs the events in order; a later round leaves out its first event (the sale's purchase again). */
async function runEvents(events: PointsEvent[], run: Runners, laterRound: boolean): Promise<Ran> {
  let first: ProcessOutcome | undefined;
  const followUps: FollowUp[] = [];
  for (const [i, event] of events.entries()) {
    const outcome = event.type === 'purchase' ? await run.purchase(event) : await run.refund(event);
    // The message comes back for what must wait (its kind decides the deferral); what is done stays done.
    if (outcome.action === 'retry') return { followUps, wait: outcome };
    if (laterRound && i === 0) continue;
    if (!first && !laterRound) {
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
  return { first, followUps };
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

/** The sale's purchase and its supplements (only a credited sale has any), as the ledger holds them. */
const chainFacts = (deps: ResolveDeps, source: string, saleId: string): Promise<SaleChain> =>
  readChain((ref) => deps.ledger.getOrder(ref), source, saleId);

/** The sale's till spends, read only when the source takes them (`tillPoints: membership`). */
async function spendFacts(deps: ResolveDeps, thin: SmaregiThinEvent, saleId: string): Promise<SpendStep[]> {
  if (thin.stateFrom.tillPoints !== 'membership') return [];
  return readSpends((ref) => deps.ledger.getOrder(ref), thin.source, saleId);
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
