import { mulberry32 } from '../../test/chaos/prng.js';

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

export const FAULT_KINDS = [
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
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

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

function shuffledKinds(count: number, random: () => number): FaultKind[] {
  const kinds = Array.from({ length: count }, (_, i) => FAULT_KINDS[i % FAULT_KINDS.length] as FaultKind);
  for (let i = kinds.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j] as FaultKind, kinds[i] as FaultKind];
  }
  return kinds;
}

/** `purchases` purchases, each followed by its refund: 2 x `purchases` events. */
export function planEvents(purchases: number, seed: number): PlannedEvent[] {
  const random = mulberry32(seed);
  const purchaseKinds = shuffledKinds(purchases, random);
  const refundKinds = shuffledKinds(purchases, random);
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

/** The model's debit (design.md): the refund's share of what the order earned, floor(credit x refunded / amount). */
export function expectedDebit(r: PlannedRefund): bigint {
  return (expectedCredit(r.purchase) * BigInt(r.amount)) / BigInt(r.purchase.amount);
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
