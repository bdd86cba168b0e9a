import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { OpsError } from './errors.js';
import { dynamoServerClock, refuseSkewedClock, type ServerClock } from './clock-skew.js';
import {
  auditLedger,
  findingLine,
  noteLine,
  reversalDepsOf,
  scanLedger,
  summaryLine,
  type AuditProgress,
  type TimeRange,
} from '../shared/audit/index.js';
import type { ProcessingSettings } from '../shared/config/index.js';
import { DAY_MS } from '../shared/time/index.js';
import type { Ledger } from '../shared/ledger/index.js';
import { createOpenApiClient, type OpenApiClient, staticCredentials } from '../shared/openapi/index.js';
import { connectToLocalStack } from './local-stack.js';
import { upstreamBudgetOn } from '../shared/upstream/index.js';

/**
 * What the audit reads and writes: the ledger table (scan, lookups, its reversal records), the Open API
 * (histories, rate-limited; reversals) and the settings the stage's worker runs with (lease, in-doubt
 * horizon, insufficient-points policy).
 */
export interface AuditTarget {
  documentClient: DynamoDBDocumentClient;
  tableName: string;
  ledger: Ledger;
  openapi: OpenApiClient;
  processing: ProcessingSettings;
  /** Epoch ms now (tests move it by hand); default Date.now. */
  clock?: () => number;
  /** Whose clock this machine's is checked against (ops/clock-skew.ts); default: the ledger's DynamoDB endpoint. */
  serverClock?: ServerClock;
  close(): Promise<void>;
}

const DURATION = /^(\d+)([dhm])$/;
const UNIT_MS = { d: DAY_MS, h: 3_600_000, m: 60_000 } as const;

/** `--since` / `--until`: an ISO date or date-time, or a duration back from now (`3d`, `12h`, `30m`). */
export function parseInstant(value: string, option: string, now: number): number {
  const d = DURATION.exec(value);
  if (d) return now - Number(d[1]) * UNIT_MS[d[2] as keyof typeof UNIT_MS];
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms))
    throw new OpsError(
      'usage',
      `${option} takes an ISO date (2026-11-01, 2026-11-01T09:00:00Z) or a duration back from now (3d, 12h, 30m), not "${value}"`,
    );
  return ms;
}

export function parseRange(options: { since?: string | undefined; until?: string | undefined }, now: number): TimeRange {
  const range: TimeRange = {};
  if (options.since !== undefined) range.from = parseInstant(options.since, '--since', now);
  if (options.until !== undefined) range.to = parseInstant(options.until, '--until', now);
  if (range.from !== undefined && range.to !== undefined && range.from >= range.to)
    throw new OpsError('usage', '--since must be before --until');
  return range;
}

/**
 * The `npm start` on PORT, reached the way `npm run ledger` reaches it, with an Open API client drawing
 * from the stack's one budget (its UPSTREAM_BUDGET_PER_MINUTE, counted in its DynamoDB) beside the workers.
 */
export async function localAuditTarget(env: NodeJS.ProcessEnv): Promise<AuditTarget> {
  const { config, handle } = await connectToLocalStack(env);
  const openapi = createOpenApiClient({
    credentials: staticCredentials({ baseUrl: handle.emulatorUrl, clientId: config.clientId, clientSecret: config.clientSecret }),
    ...upstreamBudgetOn({ client: handle.documentClient, tableName: handle.tableName }, handle.processing.upstreamBudgetPerMinute),
  });
  return {
    documentClient: handle.documentClient,
    tableName: handle.tableName,
    ledger: handle.ledger,
    openapi,
    processing: config.processing,
    async close() {
      await openapi.close();
      await handle.close();
    },
  };
}

/** Progress on stderr at most every `everyMs`, and once at the end of a run that printed any. */
export function progressPrinter(printError: (line: string) => void, everyMs = 2000, clock: () => number = Date.now) {
  let last = clock();
  let printed = false;
  return {
    scanned(records: number) {
      if (clock() - last < everyMs) return;
      last = clock();
      printed = true;
      printError(`audit: scanned ${records} ledger records so far`);
    },
    progress(p: AuditProgress) {
      if (clock() - last < everyMs && !(printed && p.customersDone === p.customers)) return;
      last = clock();
      printed = true;
      printError(`audit: read the point history of ${p.customersDone}/${p.customers} customers (${p.historyPages} pages)`);
    },
  };
}

/**
 * Scans the ledger in the range, audits it against the point histories (reversing each extra entry of a
 * duplicated marker, exactly once) and prints every finding (or JSON lines), then the fixed last line
 * `audit: orders=N refunds=M drift=D duplicates=X reversed=Y`. Exit code 1 when D > 0 (duplicates found
 * this run are drift, reversed or not: someone should look).
 */
export async function runAudit(
  target: AuditTarget,
  options: { range: TimeRange; json: boolean },
  out: { print: (line: string) => void; printError: (line: string) => void },
): Promise<number> {
  // The audit claims reversal records under leases judged by this machine's clock: refused when it is off.
  await refuseSkewedClock(target.serverClock ?? dynamoServerClock(target.documentClient, target.tableName), target.clock ?? Date.now);
  const progress = progressPrinter(out.printError);
  let scanned = 0;
  const records = await scanLedger(
    target.documentClient,
    target.tableName,
    options.range,
    (n) => {
      scanned += n;
      progress.scanned(scanned);
    },
    { redemptionMembers: true },
  );
  const reversal = reversalDepsOf({
    client: target.documentClient,
    tableName: target.tableName,
    clock: target.clock ?? Date.now,
    openapi: target.openapi,
    processing: target.processing,
  });
  const result = await auditLedger(records, {
    ledger: target.ledger,
    openapi: target.openapi,
    reversal,
    onProgress: (p) => progress.progress(p),
  });
  for (const f of result.findings) out.print(options.json ? JSON.stringify({ type: 'drift', ...f }) : findingLine(f));
  for (const n of result.notes) out.print(options.json ? JSON.stringify({ type: 'note', ...n }) : noteLine(n));
  out.print(summaryLine(result));
  return result.findings.length > 0 ? 1 : 0;
}
