import type { ActivityRecorder } from '../activity/index.js';
import { ENV, type ProcessingSettings, requiredSetting } from '../config/index.js';
import { ledgerPlannedPause, type PlannedPauseRecords } from '../consumer/index.js';
import { createCustomerRecords, type EnrolApi } from '../customers/index.js';
import { documentClientFromEnv } from '../dynamodb/index.js';
import {
  type Clock,
  createLedger,
  createTillMirrors,
  createTillReturns,
  type Ledger,
  type TillMirrors,
  type TillReturns,
} from '../ledger/index.js';
import type { PointsApi } from '../points/index.js';
import { createPrivacyRequests } from '../privacy/index.js';
import { createQuarantineStore, DEFAULT_QUARANTINE_TTL_DAYS } from '../quarantine/index.js';

/**
 * The worker's stores, all on the ledger table (and the quarantine's): the ledger, the customer records,
 * the privacy requests, the planned pause. One place builds them, on one document client.
 */

export type LedgerTable = { client: ReturnType<typeof documentClientFromEnv>; tableName: string };

/** The ledger table, built on first use: one document client for whoever needs it. */
export function ledgerTableFromEnv(env: NodeJS.ProcessEnv, client?: LedgerTable['client']): () => LedgerTable {
  let table: LedgerTable | undefined;
  return () => {
    if (table) return table;
    const tableName = requiredSetting(env, ENV.LEDGER_TABLE, 'the ledger table name is required');
    table = { client: client ?? documentClientFromEnv(env), tableName };
    return table;
  };
}

export function ledgerOn(
  { client, tableName }: LedgerTable,
  settings: ProcessingSettings,
  clock: Clock,
  activity?: ActivityRecorder,
): Ledger {
  const carried = activity ? { activity: activity.ledger } : {};
  return createLedger({ client, tableName, clock, ttlDays: settings.ledgerTtlDays, leaseSeconds: settings.leaseSeconds, ...carried });
}

/** The customer records live in the ledger table; enrolment needs the full client (register), not a narrowed one. */
export function customersFromEnv(
  env: NodeJS.ProcessEnv,
  ledgerTable: () => LedgerTable,
  settings: ProcessingSettings,
  clock: Clock,
  openapi: PointsApi,
) {
  if (!env[ENV.LEDGER_TABLE] || !('registerMember' in openapi)) return undefined;
  const { client, tableName } = ledgerTable();
  const records = createCustomerRecords({ client, tableName, clock, leaseSeconds: settings.leaseSeconds, ttlDays: settings.ledgerTtlDays });
  return { records, openapi: openapi as PointsApi & EnrolApi };
}

/** Privacy requests change the ledger table and the quarantine table (its bodies). */
export function privacyFromEnv(env: NodeJS.ProcessEnv, ledgerTable: () => LedgerTable, settings: ProcessingSettings, clock: Clock) {
  const quarantineTable = env[ENV.QUARANTINE_TABLE];
  if (!env[ENV.LEDGER_TABLE] || !quarantineTable) return undefined;
  const { client, tableName } = ledgerTable();
  const records = createCustomerRecords({ client, tableName, clock, leaseSeconds: settings.leaseSeconds, ttlDays: settings.ledgerTtlDays });
  // ttlDays: only for entries the worker never creates (intake keeps them).
  const quarantine = createQuarantineStore({ client, tableName: quarantineTable, clock, ttlDays: DEFAULT_QUARANTINE_TTL_DAYS });
  return { client, tableName, records, quarantine, requests: createPrivacyRequests({ client, tableName, clock }) };
}

/** The planned pause is a record of the ledger table (shared/consumer/planned-pause.ts). */
export function plannedPauseFromEnv(env: NodeJS.ProcessEnv, ledgerTable: () => LedgerTable): PlannedPauseRecords | undefined {
  return env[ENV.LEDGER_TABLE] ? ledgerPlannedPause(ledgerTable()) : undefined;
}

/** A till's plain returns and the members' till sales they are matched with: in the ledger table. */
export function tillReturnsFromEnv(
  env: NodeJS.ProcessEnv,
  ledgerTable: () => LedgerTable,
  settings: ProcessingSettings,
  clock: Clock,
): TillReturns | undefined {
  if (!env[ENV.LEDGER_TABLE]) return undefined;
  const { client, tableName } = ledgerTable();
  return createTillReturns({ client, tableName, clock, ttlDays: settings.ledgerTtlDays });
}

/** The steps mirroring points changes to the tills' point records (Smaregi tillPoints membership): in the ledger table. */
export function tillMirrorsFromEnv(
  env: NodeJS.ProcessEnv,
  ledgerTable: () => LedgerTable,
  settings: ProcessingSettings,
  clock: Clock,
): TillMirrors | undefined {
  if (!env[ENV.LEDGER_TABLE]) return undefined;
  const { client, tableName } = ledgerTable();
  return createTillMirrors({ client, tableName, clock, ttlDays: settings.ledgerTtlDays });
}
