import { createSecretsManagerReader, type SecretReader } from '../config/index.js';
import { SMAREGI_ENV, smaregiFromEnv } from '../smaregi/index.js';
import { SQUARE_ORDERS_ENV, squareOrdersFromEnv } from '../square-orders/index.js';
import type { WorkerDeps } from './types.js';

/** The senders' API clients the worker resolves thin events with, each with its secrets read on first use. */

/** Square's Orders API, for sources earning on their orders without tax (env SQUARE_ORDERS). */
export function squareOrdersDeps(env: NodeJS.ProcessEnv, overrides: Partial<WorkerDeps>): Partial<Pick<WorkerDeps, 'squareOrders'>> {
  let reader: SecretReader | undefined;
  const squareOrders =
    overrides.squareOrders ?? squareOrdersFromEnv(env[SQUARE_ORDERS_ENV], () => (reader ??= createSecretsManagerReader()));
  return squareOrders ? { squareOrders } : {};
}

/** Smaregi's Platform API, for sources whose webhooks name transactions only (env SMAREGI). */
export function smaregiDeps(env: NodeJS.ProcessEnv, overrides: Partial<WorkerDeps>): Partial<Pick<WorkerDeps, 'smaregi'>> {
  let reader: SecretReader | undefined;
  const smaregi = overrides.smaregi ?? smaregiFromEnv(env[SMAREGI_ENV], () => (reader ??= createSecretsManagerReader()));
  return smaregi ? { smaregi } : {};
}
