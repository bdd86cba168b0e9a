/**
 * Every registered sender's ops needs (a light entry for the stack, the docs, the stand-ins and the tests;
 * no Lambda bundle imports it): a Record over SENDER_KINDS, written by `npm run gen:senders`.
 */
import type { SenderOps } from './ops.js';
// gen:senders imports: written by `npm run gen:senders` from SENDER_KINDS (senders.ts); do not edit
import { POS_OPS } from './pos/ops.js';
import { SHOPIFY_OPS } from './shopify/ops.js';
import { SMAREGI_OPS } from './smaregi/ops.js';
import { SQUARE_OPS } from './square/ops.js';
// gen:senders end
import type { SenderKind } from './senders.js';

export const SENDER_OPS: Readonly<Record<SenderKind, SenderOps>> = {
  // gen:senders table: written by `npm run gen:senders` from SENDER_KINDS (senders.ts); do not edit
  shopify: SHOPIFY_OPS,
  pos: POS_OPS,
  square: SQUARE_OPS,
  smaregi: SMAREGI_OPS,
  // gen:senders end
};

export type { SenderAlarm, SenderOps, SenderWidget } from './ops.js';
export { SENDER_KINDS, type SenderKind } from './senders.js';
