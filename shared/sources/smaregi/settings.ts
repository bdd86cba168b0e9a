import * as z from 'zod';
import { AmountRule } from '../../money/index.js';
import { EarnAfterSetting } from '../earn-after.js';
import { ExternalKey, TitleTemplate } from '../settings.js';
import type { CustomerLinking, SourceSettingsKind } from '../types.js';
import { lazySchema } from '../../schema/index.js';

/** A Smaregi source's settings (SOURCES_CONFIG), apart from its webhook parsing: what non-intake functions read. */
export const DEFAULT_SMAREGI_WEBHOOK_HEADER = 'x-smaregi-webhook-token';

/**
 * Why a Smaregi source's `earnAfter` is refused (issue 53): the stage's setting and `npm start`'s
 * SMAREGI_EARN_AFTER say the same. `paid` (at the sale) and `{"days": N}` (a return period: the sale's
 * points are provisional until N days after it, docs/smaregi.md) are supported; a till sale is handed over
 * at the till, so there is no fulfilment to wait for.
 */
export function smaregiEarnAfterRefusal(value: unknown): string {
  if (value === 'fulfilled') return 'a Smaregi till sale is handed over at once, so "fulfilled" does not apply: use "paid" or {"days": N}';
  return 'expected "paid" or {"days": N} with N from 1 to 365 (a Smaregi till sale has no fulfilment to wait for)';
}

/** `paid`, or the days after the sale its points are provisional for. */
const SmaregiEarnAfter = lazySchema(() =>
  z.custom<EarnAfterSetting & ('paid' | { days: number })>((v) => v !== 'fulfilled' && EarnAfterSetting.safeParse(v).success, {
    error: (issue) => smaregiEarnAfterRefusal(issue.input),
  }),
);

export const SmaregiSettings = lazySchema(() =>
  z
    .object({
      /** The contract (契約ID) whose deliveries this source takes; any other is refused with 403. */
      contractId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a Smaregi contract id is 1-64 letters, digits, _ or -'),
      /** The custom header chosen in Smaregi's developer console; its value is the webhook secret. */
      webhookHeader: z
        .string()
        .regex(/^[A-Za-z0-9-]{1,64}$/, 'a header name is 1-64 letters, digits or -')
        .default(DEFAULT_SMAREGI_WEBHOOK_HEADER),
      /** Smaregi's hosts the worker reads: `production` (api.smaregi.jp, id.smaregi.jp) or `sandbox` (.dev). */
      hosts: z.enum(['production', 'sandbox']).default('production'),
      /** The stack's scheduled reconcile of this contract (missed webhooks): how often, over how long, settling first. */
      reconcile: z
        .object({
          everyMinutes: z.number().int().min(5).max(1440).default(60),
          lookbackHours: z.number().int().min(1).max(744).default(26),
          settleMinutes: z.number().int().min(0).max(120).default(10),
        })
        .strict()
        .prefault({}),
      externalKey: ExternalKey.default('smaregi'),
      /** Which of the transaction's customer fields is the member's external id. */
      customerField: z.enum(['customerCode', 'customerId']).default('customerCode'),
      amount: z
        .object({ rule: AmountRule.default('major_floor') })
        .strict()
        .prefault({}),
      /** Points spent as payment: a discount (default; paid with points earns nothing) or money that earns. */
      pointsSpent: z.enum(['discount', 'earn']).default('discount'),
      /**
       * The transaction divisions (transactionHeadDivision) that earn: "1" (通常, an ordinary sale) by
       * default. Every other division (money in/out, deposits, point adjustments, tickets, layaways, tips...)
       * is recorded as `not_a_sale` with no points call (docs/smaregi.md).
       */
      earningDivisions: z
        .array(z.string().regex(/^[0-9]{1,2}$/, 'a transaction division is 1-2 digits, e.g. "1"'))
        .min(1)
        .max(20)
        .default(['1']),
      /** The stores (storeId) whose sales earn; null: every store. A sale elsewhere is recorded as `other_store`. */
      storeIds: z
        .array(z.string().regex(/^[0-9]{1,20}$/, 'a Smaregi store id is 1-20 digits'))
        .min(1)
        .max(1000)
        .nullable()
        .default(null),
      /**
       * How the member is found: `external_id` (default: the external key `externalKey` holds the shop's
       * customer code) or `unique_id` (the customer code printed on the member's card is the membership
       * number: `GET /api/ext/users/unique_id/{code}`, no linking needed).
       */
      memberLookup: z.enum(['external_id', 'unique_id']).default('external_id'),
      /**
       * The till's points: `ignore` (Smaregi's own points, untouched) or `membership` (the till's points are
       * the membership balance: what a member spends at the till, `spendPoint`, is deducted from it).
       */
      tillPoints: z.enum(['ignore', 'membership']).default('ignore'),
      /** How long a sale first seen without a member stays open to an edit attaching one (staff attach members late). */
      lateMemberDays: z.number().int().min(1).max(90).default(31),
      /**
       * A plain return (返品販売) names no sale (docs/smaregi.md, "Till returns"): `manual` (default) leaves it
       * open for an operator (`npm run returns`); `auto` applies it to the one earlier sale of that member,
       * in that store, within `returnWindowDays`, that holds every returned product, and leaves it open when
       * there is not exactly one.
       */
      returns: z.enum(['manual', 'auto']).default('manual'),
      /** How far back (days) `returns: auto` looks for the sale a plain return belongs to. */
      returnWindowDays: z.number().int().min(1).max(365).default(30),
      /** Days of purchases that found no member to credit once a customer code is linked (`npm run members -- link`). */
      retroCreditDays: z.number().int().min(0).max(365).default(30),
      pointTitle: TitleTemplate.default('Purchase {order}'),
      refundTitle: TitleTemplate.default('Refund {order}'),
      expiryDays: z.number().int().positive().max(36_500).nullable().default(null),
      /**
       * When the points are earned: at the sale (`paid`) or `{"days": N}` after it, provisional until then
       * (edits, voids and returns before the day reduce them; the till's spend is deducted at the sale).
       * Under `tillPoints: membership` the day's credit is mirrored to the till's record by the due tick
       * (due-mirror.ts).
       */
      earnAfter: SmaregiEarnAfter.default('paid'),
    })
    .strict(),
);
export type SmaregiSettings = z.infer<typeof SmaregiSettings>;

/** How this kind's customers are linked to members (WebhookSource.customerLinking). */
export const smaregiCustomerLinking = (settings: SmaregiSettings): CustomerLinking => ({
  externalKey: settings.externalKey,
  retroCreditDays: settings.retroCreditDays,
  shopDomains: [],
  earnsLater: settings.earnAfter !== 'paid',
  memberLookup: settings.memberLookup,
  ...(settings.tillPoints === 'membership'
    ? { tillPoints: { memberLookup: settings.memberLookup, customerField: settings.customerField } }
    : {}),
});

/** The settings side of the smaregi source (its webhook.ts adds the parsing). */
export const smaregiSettingsKind: SourceSettingsKind<SmaregiSettings> = {
  kind: 'smaregi',
  settingsSchema: SmaregiSettings,
  customerLinking: smaregiCustomerLinking,
};
