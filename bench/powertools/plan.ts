import { mulberry32 } from '../../test/chaos/prng.js';

/**
 * The seeded plan both implementations run: one purchase per member (so a member's balance tells how
 * often its order was credited), each with one fault kind. Kinds are dealt round-robin, then the order is
 * shuffled with the seed: every kind appears, and the same seed gives the same list for both sides.
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
  index: number;
  orderId: string;
  /** The member's external id (key `shopify`). */
  externalId: string;
  rank: 'regular' | 'gold';
  /** Tax-inclusive yen, an integer. */
  amount: number;
  kind: FaultKind;
}

export const RANK_PERCENT = { regular: 1n, gold: 5n } as const;

export function planPurchases(events: number, seed: number): PlannedPurchase[] {
  const random = mulberry32(seed);
  const kinds = Array.from({ length: events }, (_, i) => FAULT_KINDS[i % FAULT_KINDS.length] as FaultKind);
  for (let i = kinds.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j] as FaultKind, kinds[i] as FaultKind];
  }
  return kinds.map((kind, index) => ({
    index,
    orderId: `${seed}-${1000 + index}`,
    externalId: `pt${seed}x${index}`,
    rank: random() < 0.25 ? 'gold' : 'regular',
    amount: 500 + Math.floor(random() * 20_000),
    kind,
  }));
}

/** The model's credit: floor(amount x rank rate), in exact integer arithmetic. */
export function expectedCredit(p: PlannedPurchase): bigint {
  return (BigInt(p.amount) * RANK_PERCENT[p.rank]) / 100n;
}

/** The emulator configuration: one member per planned purchase, with the purchase's rank. */
export function comparisonEmulatorConfig(plan: PlannedPurchase[], client: { id: string; secret: string }): unknown {
  const members = plan.map((p) => ({
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
