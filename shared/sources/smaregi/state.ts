import type { FollowUp, ProcessOutcome, PurchaseEvent, RefundEvent } from '../../events/index.js';
import {
  addFollowUps,
  followUpOf,
  type Reached,
  readChain,
  remainderOf,
  runInOrder,
  runRounds,
  type SaleChain,
} from '../../points/index.js';
import type { CanonicalRun, ResolveDeps } from '../resolution.js';
import type { SmaregiClient } from './client.js';
import { SmaregiError } from './errors.js';
import {
  CANCEL_REFUND_ID,
  erasedSale,
  isUnlinkedReturn,
  memberOf,
  type ResolveFacts,
  resolveTransaction,
  type SmaregiStateSettings,
} from './resolve.js';
import { settleTillReturn, tillSaleOf } from './returns.js';
import {
  countingShortfalls,
  memberKeyOf,
  type NotedDeductions,
  notingDeductions,
  readSpends,
  type SpendStep,
  spendEvents,
} from './spend.js';
import type { SmaregiThinEvent } from './thin.js';
import { notingChanges } from './till-changes.js';
import { type Mirrored, mirrorPointChange, type PointChange } from './till-mirror.js';
import { mirroredOutcome } from './till-mirror-events.js';
import { linkOf, type SmaregiTransaction } from './transaction.js';

/** The calls the worker makes to Smaregi: read a transaction, and (tillPoints membership) mirror points changes to a member's record. */
export type SmaregiStateClient = Pick<SmaregiClient, 'getTransaction'> &
  Partial<Pick<SmaregiClient, 'addCustomerPoint' | 'getCustomerPoint' | 'findCustomerByCode' | 'readCustomer' | 'listTransactions'>>;

type Fetched = { tx: SmaregiTransaction; outcome?: undefined } | { tx?: undefined; gone: boolean; outcome?: ProcessOutcome };

type Runners = CanonicalRun;

/**
 * A Smaregi webhook names transactions only: fetch the transaction's current state, turn it into what
 * its sale earns now (resolve.ts: the points core's `earns` reach, with the till's spends) and run the
 * events through the usual protocol, in order, in rounds (shared/points/earns-run.ts): the first event's
 * outcome is the answer, the others its `followUps`; an event that must wait stops the rest.
 */
export async function processSmaregiState(
  deps: ResolveDeps,
  client: SmaregiStateClient | undefined,
  thin: SmaregiThinEvent,
  given: Runners,
): Promise<ProcessOutcome> {
  const from = thin.stateFrom;
  // Under tillPoints membership every points change this transaction makes is mirrored to the till's record (below).
  const changes: PointChange[] = [];
  const tills: PointChange[] = [];
  const noted = from.tillPoints === 'membership' ? notingChanges(given, deps.ledger, { changes, tills, campaigns: deps.campaigns }) : given;
  const run = countingShortfalls(noted, deps.metrics);
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
    if (await erasedSaleRecorded(deps, thin.source, from.transactionHeadId)) return ERASED;
    const taken = await takeBackGone(deps, thin, chain, run);
    // What the cancel took (and its bonuses' take-backs) comes off the till record too.
    if (taken.action === 'retry') return taken;
    return waitForMirrors(await mirrorChanges(deps, client, thin, changes, tills)) ?? taken;
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
  // A member a privacy erase removed (its tombstone): nothing of theirs is earned, spent, mirrored or recorded again.
  if (
    (await namesErasedMember(deps, thin.source, settings, [tx, original])) ||
    (await erasedSaleRecorded(deps, thin.source, link ?? tx.transactionHeadId))
  )
    return erasedTransaction(deps, thin, tx, run);
  // A raise runs its supplement first and takes back what it supersedes in the next round (runRounds).
  let sale: PurchaseEvent | undefined;
  const deductions = notingDeductions(run);
  const reach = (current: SmaregiTransaction) =>
    runRounds(async () => {
      const linked = link && link !== current.transactionHeadId ? link : undefined;
      const facts: ResolveFacts = {
        chain: await chainFacts(deps, thin.source, current.transactionHeadId),
        ...(linked ? { linked: await chainFacts(deps, thin.source, linked), original } : {}),
        spends: await spendFacts(deps, thin, current.transactionHeadId),
        ...(linked && current.disposeDivision === '2' ? { linkedSpends: await spendFacts(deps, thin, linked) } : {}),
      };
      const resolution = resolveTransaction(thin, settings, current, facts);
      if (resolution.note)
        deps.logger?.warn('smaregi transaction state not fully applied', {
          transactionHeadId: from.transactionHeadId,
          note: resolution.note,
        });
      sale = resolution.events.find((e): e is PurchaseEvent => e.type === 'purchase' && e.customer !== null && !e.orderId.includes('/'));
      return resolution;
    }, deductions.run);
  const reached = await settleDeductions(client, tx, reach, deductions);
  if (reached.waiting) return reached.outcome;
  // A plain return naming no sale: kept for an operator, or matched (returns.ts); what its refund took is mirrored too.
  if (isUnlinkedReturn(tx)) {
    const settled = await settleTillReturn(deps, thin, tx, reached.outcome, run);
    return waitForMirrors(await mirrorChanges(deps, client, thin, changes, tills)) ?? settled;
  }
  // A member's sale keeps its store, time and products, so a later return can be matched with it.
  const earning = sale?.orderId === tx.transactionHeadId && sale.notEarning === undefined;
  const kept = deps.tillReturns && earning ? tillSaleOf(thin, from, tx) : undefined;
  if (kept) await deps.tillReturns?.rememberSale(kept);
  const mirrored = await mirrorChanges(deps, client, thin, changes, tills);
  return waitForMirrors(mirrored) ?? reached.outcome;
}

/**
 * The message waits for the mirrors it left unfinished: an add in doubt until the last horizon's end
 * (it comes back, finds its events done and settles the step), a failure with the backoff. Never acked
 * with a step still `sending`.
 */
function waitForMirrors(mirrored: Mirrored[]): ProcessOutcome | undefined {
  const waits = mirrored.map(mirroredOutcome).filter((o) => o.action === 'retry');
  const inDoubt = waits.filter((o) => o.kind === 'outcome_unknown');
  if (inDoubt.length === 0) return waits[0];
  return inDoubt.reduce((a, b) =>
    (b.kind === 'outcome_unknown' ? (b.until ?? 0) : 0) > (a.kind === 'outcome_unknown' ? (a.until ?? 0) : 0) ? b : a,
  );
}

/** Reads of the transaction after a deduction ran, at most: a spend still changing under the last is the next delivery's. */
const MAX_SPEND_READS = 3;

/**
 * A deduction runs on the state read at the message's start. A delivery that read the corrected state
 * (no spend) before the deduction was claimed found nothing to give back, and never comes again; so once
 * a deduction ran, the transaction is read again (after the claim: at least as new as any read that
 * missed it) and the sale reached again, and a state that no longer spends it gives it back. The answer
 * stays the first pass's, with what a later pass ran as its follow-ups; a later pass that must wait is
 * the answer (the message comes back and finds the work done).
 */
async function settleDeductions(
  client: SmaregiStateClient,
  tx: SmaregiTransaction,
  reach: (tx: SmaregiTransaction) => Promise<Reached>,
  deductions: NotedDeductions,
): Promise<Reached> {
  const first = await reach(tx);
  let answer = first.outcome;
  for (let read = 1; read < MAX_SPEND_READS && !first.waiting && deductions.take(); read++) {
    const fresh = await fetch(client, tx.transactionHeadId);
    // Gone: the deletion's own delivery gives the spend back (takeBackGone); a failed read comes back with the message.
    if (!fresh.tx) return fresh.outcome ? { outcome: fresh.outcome, waiting: true } : { outcome: answer, waiting: false };
    const again = await reach(fresh.tx);
    if (again.waiting) return again;
    answer = addFollowUps(answer, 'followUps' in again.outcome && again.outcome.followUps ? again.outcome.followUps : []);
  }
  return first.waiting ? first : { outcome: answer, waiting: false };
}

/**
 * The till lets a member spend what Smaregi's record holds: each change this transaction made in the
 * membership service (its earning, refunds, a moved member's claw-back; never the till's own spends) is
 * added to the member's record relatively, once (till-mirror.ts). A failure is logged and left for the
 * next delivery of the transaction (the step is found by its marker); it never undoes the change.
 */
async function mirrorChanges(
  deps: ResolveDeps,
  client: SmaregiStateClient,
  thin: SmaregiThinEvent,
  changes: PointChange[],
  tills: PointChange[],
): Promise<Mirrored[]> {
  const { addCustomerPoint, getCustomerPoint, findCustomerByCode, readCustomer, listTransactions } = client;
  if (!deps.tillMirrors) return [];
  await noteTills(deps, thin.source, tills);
  if (changes.length === 0 || !addCustomerPoint || !getCustomerPoint || !findCustomerByCode || !readCustomer || !listTransactions)
    return [];
  const from = thin.stateFrom;
  const mirror = {
    source: thin.source,
    externalKey: from.externalKey,
    memberLookup: from.memberLookup,
    customerField: from.customerField,
    openapi: deps.openapi,
    smaregi: {
      addCustomerPoint: addCustomerPoint.bind(client),
      getCustomerPoint: getCustomerPoint.bind(client),
      findCustomerByCode: findCustomerByCode.bind(client),
      readCustomer: readCustomer.bind(client),
      listTransactions: listTransactions.bind(client),
    },
    steps: deps.tillMirrors,
    inDoubtSeconds: deps.inDoubtSeconds,
    logger: deps.logger,
  };
  const mirrored: Mirrored[] = [];
  for (const change of changes) mirrored.push(await mirrorPointChange(mirror, change));
  return mirrored;
}

/** The till's own changes, noted for the settles of mirror adds in doubt; a note that fails is logged (such a settle may then end `conflict`). */
async function noteTills(deps: ResolveDeps, source: string, tills: PointChange[]): Promise<void> {
  for (const t of tills) {
    try {
      await deps.tillMirrors?.noteTill({ source, marker: t.marker, memberId: t.memberId, points: t.points });
    } catch (e) {
      deps.logger?.warn('till point note failed', { source, marker: t.marker, errorKind: e instanceof Error ? e.name : 'unknown' });
    }
  }
}

/** Whether the transaction (or the sale a return-cancellation names) names a member whose tombstone is there. */
async function namesErasedMember(
  deps: ResolveDeps,
  source: string,
  settings: SmaregiStateSettings,
  txs: (SmaregiTransaction | undefined)[],
): Promise<boolean> {
  for (const tx of txs) {
    const member = tx && memberOf(tx, settings);
    if (member && (await deps.ledger.isRedacted({ source, customerId: member.externalId }))) return true;
  }
  return false;
}

const ERASED: ProcessOutcome = { kind: 'skipped', action: 'ack', reason: 'customer_redacted' };

/** Whether the sale's ledger record is one an erase redacted (its member gone from it): its points move no more. */
async function erasedSaleRecorded(deps: ResolveDeps, source: string, saleId: string): Promise<boolean> {
  const order = await deps.ledger.getOrder({ source, orderId: saleId });
  return order?.redactedAt !== undefined && order.externalId === undefined;
}

/**
 * An erased member's transaction: a sale the ledger never saw is recorded naming nobody (`skipped` /
 * `customer_redacted`), so the reconcile finds it recorded; anything else changes nothing. The points
 * already granted stay with the membership service, which a void or return of the erased member's sale
 * no longer moves (docs/privacy.md).
 */
async function erasedTransaction(deps: ResolveDeps, thin: SmaregiThinEvent, tx: SmaregiTransaction, run: Runners): Promise<ProcessOutcome> {
  const isSale = tx.disposeDivision !== '2' && tx.returnSales !== '1';
  if (!isSale || (await deps.ledger.getOrder({ source: thin.source, orderId: tx.transactionHeadId }))) return ERASED;
  return run.purchase(erasedSale(thin, thin.stateFrom, tx));
}

/** Passes over a deleted sale's till spend: an unfinished deduction is finished first, then given back. */
const MAX_GONE_SPEND_PASSES = 3;

/**
 * A deleted sale earns nothing now. The till's spent points come back before the sale's are taken back
 * (as for a void): a member who spent what this sale earned would otherwise meet the cancel short, and
 * keep what the give-back returns. A deduction left unfinished (an attempt that died after it landed) is
 * finished first and given back on the next pass, so the give-back always precedes the cancel.
 */
async function takeBackGone(deps: ResolveDeps, thin: SmaregiThinEvent, chain: SaleChain, run: Runners): Promise<ProcessOutcome> {
  const from = thin.stateFrom;
  const key = memberKeyOf(from);
  const spent: FollowUp[] = [];
  for (let pass = 0; pass < MAX_GONE_SPEND_PASSES; pass++) {
    const spend = spendEvents(thin, from.transactionHeadId, await spendFacts(deps, thin, from.transactionHeadId), undefined, key);
    for (const event of spend.events) {
      const outcome = await run.purchase(event);
      // What must wait comes back with the message; the cancel never runs ahead of an unfinished give-back.
      if (outcome.action === 'retry') return outcome;
      spent.push(followUpOf(event, outcome));
    }
    if (!spend.again) break;
  }
  const cancel = goneRefund(thin, from.transactionHeadId, from.refundTitle);
  const answer = await runInOrder([cancel, ...chain.supplements.map((o) => remainderOf(cancel, o.orderId, CANCEL_REFUND_ID))], run);
  return answer.action === 'retry' ? answer : addFollowUps(answer, spent);
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

/** The sale's purchase and its supplements (only a credited sale has any), and their booked refunds left unfinished, as the ledger holds them. */
const chainFacts = (deps: ResolveDeps, source: string, saleId: string): Promise<SaleChain> =>
  readChain(
    (ref) => deps.ledger.getOrder(ref),
    source,
    saleId,
    (ref) => deps.ledger.getRefund(ref),
  );

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
