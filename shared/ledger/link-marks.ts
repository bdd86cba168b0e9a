import { Expression } from './expression.js';
import { linkMarkKey } from './records.js';
import type { Store } from './store.js';

/** A source customer, as a purchase names them and as a link or enrolment makes them a member. */
export interface SourceCustomer {
  source: string;
  externalKey: string;
  externalId: string;
}

/**
 * The mark a link or enrolment leaves before it looks for the customer's orders that found no member
 * (`linked#<source>#<key>#<id>`). A purchase that looked the customer up just before the link, and
 * records `customer_not_found` just after the link looked, would be missed by both; so a purchase that
 * has just recorded `customer_not_found` reads the mark, and finding it credits itself (purchase.ts).
 * The mark only has to outlive such an attempt (its lease): it is kept a day, then expires.
 */
export interface LinkMarks {
  markCustomerLinked(customer: SourceCustomer): Promise<void>;
  /** Whether a link or enrolment of the customer has begun crediting their earlier orders (lately). */
  customerLinked(customer: SourceCustomer): Promise<boolean>;
}

const MARK_KEPT_SECONDS = 86_400;
const KIND = 'customer_link';

export function createLinkMarks(store: Pick<Store, 'clock' | 'iso' | 'get' | 'update'>): LinkMarks {
  const keyOf = (c: SourceCustomer) => linkMarkKey(c.source, c.externalKey, c.externalId);
  return {
    async markCustomerLinked(customer) {
      const now = store.clock();
      const e = new Expression()
        .set('kind', KIND)
        .set('linkedAt', store.iso(now))
        .set('ttl', Math.floor(now / 1000) + MARK_KEPT_SECONDS);
      // Never over another kind of record (the key's prefix is the mark's own: it cannot be one).
      await store.update(keyOf(customer), e, `attribute_not_exists(pk) OR ${e.path('kind')} = ${e.value(KIND)}`);
    },
    async customerLinked(customer) {
      return (await store.get(keyOf(customer)))?.kind === KIND;
    },
  };
}
