import { ENV } from '../config/index.js';
import { type Clock, createRedemptionLedger, type Ledger } from '../ledger/index.js';
import type { PointsApi } from '../points/index.js';
import { redemptionDepsFromEnv, type UsageDeps } from '../redemption/index.js';
import { loadSourceSettings } from '../sources/index.js';
import type { LedgerTable } from './stores.js';
import type { WorkerLogger } from './types.js';

/** The sources that redeem, each with its redemption records (in the ledger table). */
export function redemptionUsageFromEnv(
  env: NodeJS.ProcessEnv,
  ledgerTable: () => LedgerTable,
  ledger: Ledger,
  openapi: PointsApi,
  logger: WorkerLogger,
  clock: Clock,
): UsageDeps | undefined {
  if (!env[ENV.LEDGER_TABLE] || !('getMemberByExternalId' in openapi)) return undefined;
  const sources = loadSourceSettings(env[ENV.SOURCES_CONFIG]);
  const api = openapi as unknown as Parameters<typeof redemptionDepsFromEnv>[3]['openapi'];
  const bySource = new Map<string, ReturnType<typeof redemptionDepsFromEnv>>();
  for (const name of sources.keys()) {
    const { client, tableName } = ledgerTable();
    const ledgerOf = createRedemptionLedger({ client, tableName, clock });
    bySource.set(name, redemptionDepsFromEnv(env, sources, name, { openapi: api, logger, ledger: ledgerOf, now: clock }));
  }
  if (![...bySource.values()].some((d) => d !== undefined)) return undefined;
  return { redemption: (source) => bySource.get(source), ledger };
}
