import { createSecretsManagerReader, type SecretReader } from '../config/index.js';
import { SENDER_RESOLUTIONS, senderClientsFromEnv } from '../sources/resolution.entry.js';
import type { WorkerDeps } from './types.js';

/**
 * Each sender's API clients the worker resolves thin events with, from the sender's own environment variable
 * (SQUARE_ORDERS, SMAREGI), each with its secrets read on first use.
 */
export function sendersFromEnv(env: NodeJS.ProcessEnv, overrides: Partial<WorkerDeps>): Partial<Pick<WorkerDeps, 'senders'>> {
  let reader: SecretReader | undefined;
  const senders = overrides.senders ?? senderClientsFromEnv(SENDER_RESOLUTIONS, env, () => (reader ??= createSecretsManagerReader()));
  return Object.keys(senders).length > 0 ? { senders } : {};
}
