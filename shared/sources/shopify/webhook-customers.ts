import * as z from 'zod';
import type { CustomerEvent } from '../../events/index.js';
import { DateTimeWithOffset, invalid, NumericId, schemaError } from '../payload.js';
import { ignored, ok, rejected, type Outcome } from '../types.js';
import { lazyObject } from '../../schema/index.js';

/**
 * Shopify's customer topics: `customers/create` becomes a customer event (enrol the new customer as a
 * member, exactly once, when the source's `enrolment` is `register`). Only the id and the dates are
 * read: a customer's name, e-mail, phone and addresses are never parsed, kept or queued.
 */

export const ShopifyCustomer = lazyObject(z.object, () => ({
  id: NumericId,
  created_at: DateTimeWithOffset.nullish(),
  updated_at: DateTimeWithOffset.nullish(),
}));
export type ShopifyCustomer = z.infer<typeof ShopifyCustomer>;

export function parseCustomer(json: unknown): Outcome<ShopifyCustomer> {
  const customer = ShopifyCustomer.safeParse(json);
  return customer.success ? ok(customer.data) : rejected(schemaError(customer.error));
}

export interface EnrolmentSettings {
  externalKey: string;
  enrolment: 'off' | 'register';
  retroCreditDays: number;
}

/** customers/create -> `enrol`, or ignored where the source does not enrol. */
export function enrolmentEvent(
  customer: ShopifyCustomer,
  context: { source: string; settings: EnrolmentSettings; delivery: CustomerEvent['delivery']; triggeredAt?: string | undefined },
): Outcome<CustomerEvent> {
  const { source, settings } = context;
  if (settings.enrolment !== 'register') return ignored('enrolment is off for this source (setting enrolment)');
  // Shopify's own sample sends created_at null: the update time, else when Shopify triggered the delivery.
  const occurredAt = customer.created_at ?? customer.updated_at ?? context.triggeredAt;
  if (!occurredAt || !DateTimeWithOffset.safeParse(occurredAt).success)
    return rejected(invalid('created_at', 'the customer has no creation time'));
  const eventId = `${source}:customer:${customer.id}:enrol`;
  return ok({
    type: 'customer',
    eventId,
    source,
    action: 'enrol',
    customer: { externalKey: settings.externalKey, externalId: customer.id },
    occurredAt,
    retroCreditDays: settings.retroCreditDays,
    delivery: { ...context.delivery, id: context.delivery.webhookId ?? context.delivery.eventId ?? eventId },
  });
}
