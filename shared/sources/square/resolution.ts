import type { SquareOrdersClient } from './client.js';
import { SQUARE_ORDERS_ENV, squareOrdersFromEnv } from './from-env.js';
import { measuredPurchase } from './order-amount.js';
import { SquareAmountFrom, type SquareOrderPurchase } from './thin.js';
import { PurchaseEvent } from '../../events/index.js';
import type * as z from 'zod';
import type { SenderResolution } from '../resolution.js';

// The thin event's schema: built at first use, in the worker only (the intake checks the part alone).
let thinSchema: z.ZodType<SquareOrderPurchase> | undefined;

/** Square's payment resolved: the amount its points are calculated on, read from its order (order-amount.ts). */
export const squareResolution: SenderResolution<Pick<SquareOrdersClient, 'retrieveOrder'>, SquareOrderPurchase> = {
  sender: 'square',
  key: 'amountFrom',
  kind: 'square_order',
  thinEvent: () => (thinSchema ??= PurchaseEvent.extend({ amountFrom: SquareAmountFrom }) as unknown as z.ZodType<SquareOrderPurchase>),
  clientsFromEnv: (env, secrets) => squareOrdersFromEnv(env[SQUARE_ORDERS_ENV], secrets),
  resolve: (thin, { client, deps }) => measuredPurchase(deps, client, thin),
};
