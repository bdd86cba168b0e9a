import type { ProcessOutcome, RefundEvent } from '../../events/index.js';
import type {
  NewTillReturn,
  NewTillSale,
  OrderRecord,
  TillLine,
  TillReturnRecord,
  TillReturns,
  TillSaleRecord,
} from '../../ledger/index.js';
import { METRIC } from '../../metrics/index.js';
import { compareDecimals, type Decimal, formatDecimal, parseDecimal, subtractDecimals, sumDecimals, ZERO } from '../../money/index.js';
import { addFollowUps, chainState, earnsRefund, followUpOf, type MetricsSink, readChain } from '../../points/index.js';
import type { CanonicalRun, ResolveDeps } from '../resolution.js';
import { transactionAmount } from './money.js';
import { customerOf, isCancelled, magnitude, occurredAt, returnRefundId, type SmaregiStateSettings } from './resolve.js';
import type { SmaregiThinEvent } from './thin.js';
import type { SmaregiTransaction } from './transaction.js';

/**
 * Till returns an operator can settle. Smaregi links a return made from the sale's own record (返品取消,
 * a return-cancellation) to it, but a plain return (返品販売) to nothing (docs/smaregi.md, "Till returns"):
 * such a return of a member is kept in the ledger (`till-return#`, open), counted (`UnlinkedReturns`), and
 * settled by an operator (`npm run returns -- apply <id> --sale <sale>`: a refund `return-<id>` of that sale,
 * queued like any event) or dismissed. Under `returns: auto` the worker applies it itself when exactly one
 * earlier sale of that member, in that store, within `returnWindowDays`, holds every returned product in at
 * least the returned quantity and has that much left to refund. To match, each member's sale keeps its
 * store, time and products (`till-sale#`: ids and quantities only). A sale still waiting for its day
 * (`earnAfter: {"days": N}`) takes a return as a refund before the moment: it earns less at its day.
 */

/** What the worker's resolution needs for till returns (absent: returns are recorded as unlinked refunds only). */
export interface TillReturnDeps {
  readonly tillReturns?: TillReturns | undefined;
  readonly metrics?: MetricsSink | undefined;
}

const DAY_MS = 86_400_000;
const DEFAULT_WINDOW_DAYS = 30;

/** A transaction's products and quantities (magnitudes), summed per product; on a return, with their amounts. */
function linesOf(tx: SmaregiTransaction, withAmounts: boolean): TillLine[] {
  const byProduct = new Map<string, { quantity: Decimal[]; amount: Decimal[] }>();
  for (const line of tx.details ?? []) {
    const productId = (line as { productId?: unknown }).productId;
    if (typeof productId !== 'string' || productId === '') continue;
    const entry = byProduct.get(productId) ?? { quantity: [], amount: [] };
    entry.quantity.push(magnitude(parseDecimal(line.quantity ?? '1') ?? ZERO));
    entry.amount.push(magnitude(parseDecimal(line.unitDiscountedSum) ?? ZERO));
    byProduct.set(productId, entry);
  }
  return [...byProduct].map(([productId, e]) => ({
    productId,
    quantity: formatDecimal(sumDecimals(e.quantity)),
    ...(withAmounts ? { amount: formatDecimal(sumDecimals(e.amount)) } : {}),
  }));
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The till return a plain return of a member is kept as; undefined without a member (nobody's points to take). */
export function tillReturnOf(thin: SmaregiThinEvent, settings: SmaregiStateSettings, tx: SmaregiTransaction): NewTillReturn | undefined {
  const member = customerOf(tx, settings);
  if (!member) return undefined;
  const storeId = str(tx.storeId);
  const terminalId = str((tx as { terminalId?: unknown }).terminalId);
  return {
    source: thin.source,
    returnId: tx.transactionHeadId,
    ...(storeId ? { storeId } : {}),
    ...(terminalId ? { terminalId } : {}),
    occurredAt: occurredAt(tx, thin.occurredAt),
    externalKey: member.externalKey,
    externalId: member.externalId,
    amount: formatDecimal(magnitude(transactionAmount(tx, settings.pointsSpent).amount)),
    currency: 'JPY',
    rule: settings.rule,
    refundTitle: settings.refundTitle,
    lines: linesOf(tx, true),
  };
}

/** What a member's sale keeps for matching returns: undefined for no member, no store, a void or a return. */
export function tillSaleOf(thin: SmaregiThinEvent, settings: SmaregiStateSettings, tx: SmaregiTransaction): NewTillSale | undefined {
  const member = customerOf(tx, settings);
  const storeId = str(tx.storeId);
  if (!member || !storeId || isCancelled(tx) || tx.returnSales === '1' || tx.disposeDivision === '2') return undefined;
  return {
    source: thin.source,
    saleId: tx.transactionHeadId,
    storeId,
    occurredAt: occurredAt(tx, thin.occurredAt),
    externalKey: member.externalKey,
    externalId: member.externalId,
    lines: linesOf(tx, false),
  };
}

/** The refund that takes the return's share back from the sale's purchase `orderId` (its live one). */
export function tillReturnRefund(r: TillReturnRecord, orderId: string): RefundEvent {
  const refundId = returnRefundId(r.returnId);
  return earnsRefund(
    {
      type: 'earns',
      source: r.source,
      orderId,
      purchase: undefined,
      cancelled: false,
      refunds: {
        occurredAt: r.occurredAt,
        delivery: { id: `till-return:${r.returnId}`, topic: 'till-return/apply' },
        test: false,
        title: r.refundTitle,
        amount: parseDecimal(r.amount) ?? ZERO,
      },
      currency: r.currency,
      rule: r.rule,
    },
    orderId,
    refundId,
    false,
  );
}

/** The ledger reads settling needs: the orders (and refund records) of a sale's chain. */
export type SaleReader = Pick<ResolveDeps['ledger'], 'getOrder' | 'getRefund'>;

/** What the ledger holds of a sale a return may be applied to. */
export interface SaleFacts {
  saleId: string;
  /** The purchase a refund of the sale goes to (the live one of its chain, after raising edits), when credited. */
  live: OrderRecord | undefined;
  sale: OrderRecord | undefined;
  lines: TillSaleRecord | undefined;
}

export async function saleFacts(
  ledger: SaleReader,
  tillReturns: Pick<TillReturns, 'getSale'>,
  source: string,
  saleId: string,
): Promise<SaleFacts> {
  const chain = await readChain(
    (ref) => ledger.getOrder(ref),
    source,
    saleId,
    (ref) => ledger.getRefund(ref),
  );
  // The purchase a return takes back from: the credited one, or a sale still waiting for its day (`earnAfter`;
  // its edits revise the sale itself, so it has no chain of credits yet), whose return is a refund before
  // the moment (it earns less). A sale waiting for its customer's link earned nothing.
  const state = chainState(chain);
  const pending = chain.sale?.state === 'done' && chain.sale.outcome === 'pending_earn';
  const liveId = state?.live.outcome === 'credited' ? state.live.orderId : pending ? saleId : undefined;
  const [sale, live, lines] = await Promise.all([
    ledger.getOrder({ source, orderId: saleId }),
    liveId ? ledger.getOrder({ source, orderId: liveId }) : Promise.resolve(undefined),
    tillReturns.getSale(source, saleId),
  ]);
  return { saleId, sale, live, lines };
}

const decimal = (text: string | undefined): Decimal => parseDecimal(text ?? '0') ?? ZERO;

/**
 * A provisional sale (issue 53): a refund of it is booked before its moment (one whose credit is under way
 * waits for it, then debits its share).
 */
const waitsForItsDay = (order: OrderRecord): boolean => order.outcome === 'pending_earn';

/** What of the sale is left to give back: before its day, of the amount it will earn on (edits included). */
function unrefunded(live: OrderRecord): Decimal {
  if (waitsForItsDay(live)) return subtractDecimals(decimal(live.earnBase?.exact ?? live.eligibleExact), decimal(live.earnRefundedExact));
  return subtractDecimals(decimal(live.eligibleExact), decimal(live.refundedExact));
}

/** Why the return cannot be applied to the sale (another member, more than the sale, products it did not have), or undefined. */
export function applyRefusal(r: TillReturnRecord, facts: SaleFacts): string | undefined {
  const { saleId, sale, live, lines } = facts;
  if (!sale) return `the ledger has no sale ${saleId} of ${r.source}`;
  // An erased member's sale or return names nobody: never applied, by hand or by the match.
  if (sale.externalId === undefined || sale.externalKey !== r.externalKey || sale.externalId !== r.externalId)
    return `sale ${saleId} is not the member's of return ${r.returnId}`;
  if (!live) return `sale ${saleId} earned no points (${sale.outcome ?? sale.state}): nothing to take back`;
  const left = unrefunded(live);
  if (compareDecimals(decimal(r.amount), left) > 0)
    return `return ${r.returnId} gives back ¥${r.amount}, more than the ¥${formatDecimal(left)} of sale ${saleId} left unrefunded`;
  if (!lines) return `the ledger keeps no products of sale ${saleId} (a sale recorded before till returns were kept): compare it by hand`;
  for (const line of r.lines) {
    const sold = lines.lines.find((l) => l.productId === line.productId);
    if (!sold) return `sale ${saleId} has no product ${line.productId}`;
    if (compareDecimals(decimal(line.quantity), decimal(sold.quantity)) > 0)
      return `sale ${saleId} sold ${sold.quantity} of product ${line.productId}, the return gives back ${line.quantity}`;
  }
  return undefined;
}

/**
 * `returns: auto`: the one sale the return belongs to, or undefined when none or several fit (then an
 * operator decides): that member's, that store's, within the window before the return, holding every
 * returned product in at least the returned quantity, and able to take it (applyRefusal).
 */
async function matchSale(
  ledger: SaleReader,
  tillReturns: TillReturns,
  r: TillReturnRecord,
  windowDays: number,
): Promise<string | undefined> {
  // A return an erase took the member from (dismissed by it) has nobody's sale to match.
  if (!r.storeId || r.lines.length === 0 || r.externalId === undefined) return undefined;
  const until = Date.parse(r.occurredAt);
  if (Number.isNaN(until)) return undefined;
  const sales = await tillReturns.salesOf({
    source: r.source,
    externalKey: r.externalKey,
    externalId: r.externalId,
    storeId: r.storeId,
    from: new Date(until - windowDays * DAY_MS).toISOString(),
    until: '9',
  });
  const fitting: string[] = [];
  for (const sale of sales) {
    if (sale.saleId === r.returnId || !(Date.parse(sale.occurredAt) <= until)) continue;
    const facts = await saleFacts(ledger, tillReturns, r.source, sale.saleId);
    if (applyRefusal(r, facts) === undefined) fitting.push(sale.saleId);
    if (fitting.length > 1) return undefined;
  }
  return fitting[0];
}

/**
 * After a plain return's unlinked refund was recorded: keep it for an operator (counted once, when first
 * kept), match it under `returns: auto`, and run the refund of the sale it is applied to (by the match, or
 * by an operator whose queued refund this repeats: the ledger makes a second one a duplicate).
 */
export async function settleTillReturn(
  deps: ResolveDeps,
  thin: SmaregiThinEvent,
  tx: SmaregiTransaction,
  answer: ProcessOutcome,
  run: CanonicalRun,
): Promise<ProcessOutcome> {
  const { tillReturns } = deps;
  const input = tillReturns ? tillReturnOf(thin, thin.stateFrom, tx) : undefined;
  if (!tillReturns || !input) return answer;
  const kept = await tillReturns.record(input);
  if (kept.created) deps.metrics?.addMetric(METRIC.unlinkedReturns, 'Count', 1);
  let record = kept.record;
  if (record.status === 'open' && thin.stateFrom.returns === 'auto') {
    const saleId = await matchSale(deps.ledger, tillReturns, record, thin.stateFrom.returnWindowDays ?? DEFAULT_WINDOW_DAYS);
    if (saleId) {
      const applied = await tillReturns.apply(record.source, record.returnId, {
        saleId,
        refundId: returnRefundId(record.returnId),
        by: 'auto',
      });
      record = applied.ok ? applied.record : (applied.current ?? record);
    }
  }
  if (record.status !== 'applied' || !record.saleId) return answer;
  const facts = await saleFacts(deps.ledger, tillReturns, record.source, record.saleId);
  const refund = tillReturnRefund(record, facts.live?.orderId ?? record.saleId);
  const outcome = await run.refund(refund);
  // A refund that must wait comes back with the message: the return is applied already, so the next receive runs it again.
  if (outcome.action === 'retry') return outcome;
  return addFollowUps(answer, [followUpOf(refund, outcome)]);
}
