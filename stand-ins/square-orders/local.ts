import { SQUARE_ORDERS_ENV } from '../../shared/sources/square/index.js';
import type { LocalStandIn } from '../plug-in.js';
import { sourceSettingsOf } from '../sources-config.js';
import { type SquareOrdersStandIn, startSquareOrdersStandIn } from './server.js';

/** The Square Orders stand-in's access token (a demo value). */
export const SQUARE_ORDERS_LOCAL = { accessToken: 'demo-square-orders-token' } as const;

/** The Square source's `amount.basis` in SOURCES_CONFIG (`amount` when it says none). */
export function squareAmountBasis(sourcesConfig: string | undefined): string {
  const basis = (sourceSettingsOf(sourcesConfig, 'square')?.amount as { basis?: unknown } | undefined)?.basis;
  return typeof basis === 'string' ? basis : 'amount';
}

/**
 * `npm start`'s Square Orders API (SQUARE_ORDERS_PORT): the worker reads a payment's order there
 * (SQUARE_ORDERS, unless set), for a Square source on `subtotal_excluding_tax`.
 */
export const localStandIn: LocalStandIn<undefined, SquareOrdersStandIn, { url: string; basis: string }> = {
  kind: 'square',
  name: 'square-orders',
  port: { variable: 'SQUARE_ORDERS_PORT', default: 8791 },
  start: (port) => startSquareOrdersStandIn({ port, accessToken: SQUARE_ORDERS_LOCAL.accessToken }),
  environment: (started, env) => ({
    [SQUARE_ORDERS_ENV]:
      env[SQUARE_ORDERS_ENV] ?? JSON.stringify({ square: { accessToken: SQUARE_ORDERS_LOCAL.accessToken, origin: started.url } }),
  }),
  info: (started, env, sourcesKey) => ({ url: started.url, basis: squareAmountBasis(env[sourcesKey]) }),
  banner: (started) => ({
    services: [
      `  Square Orders API        ${started.url}   stand-in: GET /v2/orders/{id} (token ${SQUARE_ORDERS_LOCAL.accessToken}), POST /__square/orders`,
    ],
    secrets: [],
  }),
};
