/**
 * Every registered sender's ops needs (a light entry for the stack, the docs and the tests; no Lambda
 * bundle imports it). Typed by the registry's kinds: registering a kind without its ops is a compile error.
 */
import type { SenderOps } from './ops.js';
import { POS_OPS } from './pos/ops.js';
import type { SenderKind } from './registry.js';
import { SHOPIFY_OPS } from './shopify/ops.js';
import { SMAREGI_OPS } from './smaregi/ops.js';
import { SQUARE_OPS } from './square/ops.js';

export const SENDER_OPS: Readonly<Record<SenderKind, SenderOps>> = {
  shopify: SHOPIFY_OPS,
  pos: POS_OPS,
  square: SQUARE_OPS,
  smaregi: SMAREGI_OPS,
};

export type { SenderAlarm, SenderOps, SenderWidget } from './ops.js';
export type { SenderKind } from './registry.js';
