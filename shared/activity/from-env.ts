// Single files of shared/config, not its index: receive-webhook loads this module (see shared/intake/quarantine.ts).
import { DEFAULT_LEDGER_TTL_DAYS, ENV, envInteger, MAX_LEDGER_TTL_DAYS, MIN_LEDGER_TTL_DAYS } from '../config/index.js';
import { type ActivityRecorder, createActivityRecorder } from './recorder.js';
import { createActivityStore } from '../ledger/index.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { documentClientFromEnv } from '../dynamodb/index.js';

/**
 * The recorder the functions use, from the environment: ACTIVITY_TABLE (unset: none, nothing is
 * recorded), LEDGER_TTL_DAYS (the same retention as the ledger), DYNAMODB_ENDPOINT (local only). The
 * DynamoDB client is built on the first write, not at cold start.
 */
export function activityFromEnv(
  env: NodeJS.ProcessEnv,
  /** Told of a write that failed (which one and the error's name: never its data). */
  logger?: { warn(message: string, extra: Record<string, unknown>): void },
  /** The table's client when the caller has one already (the worker shares its ledger's); else one from `env`. */
  client?: () => Pick<DynamoDBDocumentClient, 'send'>,
): ActivityRecorder | undefined {
  const tableName = env[ENV.ACTIVITY_TABLE]?.trim();
  if (!tableName) return undefined;
  const ttlDays = envInteger(
    env,
    ENV.LEDGER_TTL_DAYS,
    { fallback: DEFAULT_LEDGER_TTL_DAYS, min: MIN_LEDGER_TTL_DAYS, max: MAX_LEDGER_TTL_DAYS },
    () => new Error(`${ENV.LEDGER_TTL_DAYS} must be a whole number of days from ${MIN_LEDGER_TTL_DAYS} to ${MAX_LEDGER_TTL_DAYS}`),
  );
  const store = async () => {
    // Built on the first write, not at import. A static import: every function that records activity loads
    // the DynamoDB SDK at import for its ledger already, and a dynamic import() here made esbuild wrap each
    // module such a bundle holds in a lazy-init function (`__esm`) that V8 parsed twice (bench/bundles.ts).
    const made = client?.() ?? documentClientFromEnv(env);
    return createActivityStore({ client: made, tableName, clock: Date.now, ttlDays });
  };
  const onError = (what: string, e: unknown) =>
    logger?.warn('activity not recorded', { what, error: e instanceof Error ? e.name : 'unknown' });
  return createActivityRecorder({ store, clock: Date.now, onError });
}

/** `{ activity }` when there is one, else nothing: for a deps object whose `activity` is optional. */
export const activityOf = (activity: ActivityRecorder | undefined): { activity?: ActivityRecorder } => (activity ? { activity } : {});
