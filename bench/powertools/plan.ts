import { mulberry32 } from '../../chaos/prng.js';

/**
 * The seeded plan both implementations run: one purchase per member (so a member's point history tells how
 * often its order was credited) and one partial refund of it, each event with its own fault kind. Kinds are
 * dealt round-robin to the purchases and again to the refunds, each list then shuffled with the seed: every
 * kind appears for both, and the same seed gives the same list for both sides. Each purchase is followed by
 * its refund (the refund comes once its purchase is acknowledged, as a shop refunds a paid order).
 */

/** The Open API client's per-phase timeout on both sides; a `delay` fault holds answers past it. */
export const CLIENT_TIMEOUT_MS = 300;
/** The Lambda timeout of the Powertools function (scaled down: it must outlast the client's timeout). */
export const LAMBDA_TIMEOUT_MS = 700;

/** What both event types meet. */
const COMMON_KINDS = [
  'clean',
  'duplicate',
  'concurrent',
  'error_500',
  'reset_before',
  'reset_after_commit',
  'delay',
  'crash_before_call',
  'crash_after_call',
  'timeout',
  // The grant commits, the attempt dies, and the member's history gets more than a page of newer entries
  // before the retry (a busy account): a look at the first page no longer finds the remark.
  'busy_member',
] as const;
/** Refunds also meet: the member spent most of the points before the refund came (the debit is clamped). */
export const FAULT_KINDS = [...COMMON_KINDS, 'insufficient'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export const KINDS_OF = { purchase: COMMON_KINDS, refund: FAULT_KINDS } as const;
/** Kinds after which the first attempt's outcome is unknown to its caller (the grant may have committed). */
export const UNKNOWN_OUTCOME_KINDS: readonly FaultKind[] = ['reset_after_commit', 'delay', 'crash_after_call', 'timeout', 'busy_member'];
/** Entries a `busy_member` gets between the dead attempt and its retry (the careful team's check reads 100). */
export const BUSY_ENTRIES = 110;

export interface PlannedPurchase {
  type: 'purchase';
  index: number;
  orderId: string;
  /** The member's external id (key `shopify`). */
  externalId: string;
  rank: 'regular' | 'gold';
  /** Tax-inclusive yen, an integer. */
  amount: number;
  kind: FaultKind;
}

export interface PlannedRefund {
  type: 'refund';
  index: number;
  orderId: string;
  refundId: string;
  externalId: string;
  /** The purchase this refund gives money back for. */
  purchase: PlannedPurchase;
  /** Tax-inclusive yen refunded, an integer: 30 % to 100 % of the order. */
  amount: number;
  kind: FaultKind;
}

export type PlannedEvent = PlannedPurchase | PlannedRefund;

/** The remark of the points each member holds before the run (earned earlier); the counts leave that entry out. */
export const OPENING_REMARK = 'bench:opening-balance';
export const OPENING_POINTS = 1000;

export interface HistoryEntry {
  point: number;
  remarks: string | null;
}

export const RANK_PERCENT = { regular: 1n, gold: 5n } as const;

function shuffledKinds(count: number, random: () => number, from: readonly FaultKind[]): FaultKind[] {
  const kinds = Array.from({ length: count }, (_, i) => from[i % from.length] as FaultKind);
  for (let i = kinds.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j] as FaultKind, kinds[i] as FaultKind];
  }
  return kinds;
}

/** `purchases` purchases, each followed by its refund: 2 x `purchases` events. */
export function planEvents(purchases: number, seed: number): PlannedEvent[] {
  const random = mulberry32(seed);
  const purchaseKinds = shuffledKinds(purchases, random, KINDS_OF.purchase);
  const refundKinds = shuffledKinds(purchases, random, KINDS_OF.refund);
  return purchaseKinds.flatMap((kind, index): PlannedEvent[] => {
    const amount = 500 + Math.floor(random() * 20_000);
    const purchase: PlannedPurchase = {
      type: 'purchase',
      index,
      orderId: `${seed}-${1000 + index}`,
      externalId: `pt${seed}x${index}`,
      rank: random() < 0.25 ? 'gold' : 'regular',
      amount,
      kind,
    };
    const share = 30 + Math.floor(random() * 71);
    const refund: PlannedRefund = {
      type: 'refund',
      index,
      orderId: purchase.orderId,
      refundId: `${seed}-r${1000 + index}`,
      externalId: purchase.externalId,
      purchase,
      amount: Math.floor((amount * share) / 100),
      kind: refundKinds[index] as FaultKind,
    };
    return [purchase, refund];
  });
}

/** The model's credit: floor(amount x rank rate), in exact integer arithmetic. */
export function expectedCredit(p: PlannedPurchase): bigint {
  return (BigInt(p.amount) * RANK_PERCENT[p.rank]) / 100n;
}

/**
 * The model's debit (design.md): the refund's share of what the order earned, floor(credit x refunded /
 * amount); for an `insufficient` refund, what the member still holds (the clamp: its shortfall is policy,
 * recorded, not a loss).
 */
export function expectedDebit(r: PlannedRefund): bigint {
  const share = (expectedCredit(r.purchase) * BigInt(r.amount)) / BigInt(r.purchase.amount);
  return r.kind === 'insufficient' ? pointsLeftFor(r) : share;
}

/** What an `insufficient` refund's member holds when the refund comes: half the debit (the rest was spent). */
export function pointsLeftFor(r: PlannedRefund): bigint {
  return (expectedCredit(r.purchase) * BigInt(r.amount)) / BigInt(r.purchase.amount) / 2n;
}

/** The remarks of entries the bench itself makes (opening balance, spending, a busy account's entries): not counted. */
export const isBenchRemark = (remarks: string | null) => remarks?.startsWith('bench:') === true;

/** Events per type and fault kind, and the share of events whose first attempt ends with an unknown outcome. */
export function faultMix(plan: PlannedEvent[]) {
  const byType = { purchase: {} as Record<string, number>, refund: {} as Record<string, number> };
  for (const e of plan) byType[e.type][e.kind] = (byType[e.type][e.kind] ?? 0) + 1;
  const unknown = plan.filter((e) => UNKNOWN_OUTCOME_KINDS.includes(e.kind)).length;
  return { ...byType, events: plan.length, unknownOutcomeShare: Math.round((unknown / Math.max(1, plan.length)) * 100) / 100 };
}

/** The emulator configuration: one member per planned purchase, with the purchase's rank. */
export function comparisonEmulatorConfig(plan: PlannedEvent[], client: { id: string; secret: string }): unknown {
  const members = plan
    .filter((e): e is PlannedPurchase => e.type === 'purchase')
    .map((p) => ({
      login_id: `login-${p.externalId}`,
      password: 'bench-pass',
      rank: p.rank,
      external_ids: { shopify: p.externalId },
    }));
  const ranks = { regular: 0.01, gold: 0.05 };
  return {
    now: '2026-01-15 10:00:00',
    clients: [{ client_id: client.id, client_secrets: [client.secret], ranks, external_keys: ['shopify'], members }],
  };
}
