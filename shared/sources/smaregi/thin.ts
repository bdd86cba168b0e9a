import * as z from 'zod';
import type { PurchaseEvent } from '../../events/index.js';
import { lazyObject } from '../../schema/index.js';

/**
 * Smaregi's part of its thin event (`stateFrom` in the queued message): its webhooks name transactions
 * only, so the worker reads the transaction's current state (state.ts) and turns it into the purchase and
 * refunds it earns. The part carries what the source's settings say of how to read that state.
 */
export const SmaregiStateFrom = lazyObject(z.object, () => ({
  kind: z.literal('smaregi_transaction'),
  transactionHeadId: z.string().regex(/^[0-9]{1,20}$/),
  externalKey: z.string().min(1).max(64),
  customerField: z.enum(['customerCode', 'customerId']),
  pointsSpent: z.enum(['discount', 'earn']),
  rule: z.enum(['major_floor', 'minor']),
  pointTitle: z.string().min(1).max(255),
  refundTitle: z.string().min(1).max(255),
  /** Optional: events queued before these settings existed read as the defaults (division 1, every store, external id, 31 days). */
  earningDivisions: z
    .array(z.string().regex(/^[0-9]{1,2}$/))
    .max(20)
    .optional(),
  storeIds: z
    .array(z.string().regex(/^[0-9]{1,20}$/))
    .max(1000)
    .nullable()
    .optional(),
  memberLookup: z.enum(['external_id', 'unique_id']).optional(),
  lateMemberDays: z.number().int().min(1).max(90).optional(),
  /** `membership`: points spent at the till come off the membership balance (absent: `ignore`). */
  tillPoints: z.enum(['ignore', 'membership']).optional(),
  /** A plain return without its sale: `auto` matches it when exactly one sale fits (absent: `manual`). */
  returns: z.enum(['manual', 'auto']).optional(),
  returnWindowDays: z.number().int().min(1).max(365).optional(),
  /** `earnAfter: {"days": N}`: the sale's points are provisional until N days after it (absent: earned at the sale). */
  earnAfterDays: z.number().int().min(1).max(365).optional(),
}));
export type SmaregiStateFrom = z.infer<typeof SmaregiStateFrom>;

/** The thin event: a canonical purchase (amount 0, no customer) with Smaregi's part. */
export type SmaregiThinEvent = PurchaseEvent & { stateFrom: SmaregiStateFrom };
