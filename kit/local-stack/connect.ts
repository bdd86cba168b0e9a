import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createLedger, type Ledger } from '../../shared/ledger/index.js';
import { createOpenApiClient, type OpenApiClient, staticCredentials } from '../../shared/openapi/index.js';
import { LOCAL_ENV, type LocalConfig, resolveLocalConfig } from './config.js';
import {
  LOCAL_AWS,
  LOCAL_INFO_PATH,
  type ListedDeadLetter,
  type LocalQueueStats,
  type LocalStackInfo,
  LocalStackInfoSchema,
} from './info.js';
import { ConfigurationError, type ProcessingSettings } from '../../shared/config/index.js';
import { loadSources, type SourceSet } from '../../shared/sources/index.js';
import { upstreamBudgetOn } from '../../shared/upstream/index.js';

/** Handles on a running local stack, whether it runs in this process or in an `npm start` beside it. */
export interface LocalStackHandle {
  intakeUrl: string;
  /** Where the Open API and the ledger were reached (the stack's own word when it gave it). */
  emulatorUrl: string;
  dynamodbUrl: string;
  tableName: string;
  /** The client the ledger reads through, for whole-table reads (audit, privacy requests). */
  documentClient: DynamoDBDocumentClient;
  openapi: OpenApiClient;
  ledger: Ledger;
  /** The settings the stack's worker processes with (its word, else derived from this environment as npm start does). */
  processing: ProcessingSettings;
  /** The stack's sources as its handlers read them (names, external keys, linking); undefined: it does not say. */
  sources: SourceSet | undefined;
  queueStats(): Promise<LocalQueueStats>;
  deadLetters(): Promise<ListedDeadLetter[]>;
  redrive(): Promise<number>;
  /** Resolves when the queue holds nothing; rejects after `timeoutMs` (default 30 s). */
  waitForIdle(timeoutMs?: number): Promise<void>;
  /** The Square Orders stand-in and the basis the stack's Square source earns on (when the stack says). */
  squareOrders?: { url: string; basis: string };
  /** The Smaregi Platform API stand-in and the contract of the stack's Smaregi source. */
  smaregi?: { url: string; contractId: string; tillPoints?: 'ignore' | 'membership' | undefined };
  close(): Promise<void>;
}

const loopback = (port: number) => `http://127.0.0.1:${port}`;

/** GET /healthz: 'up' (200), 'starting' (503), or 'down' (nothing listening, or not a local stack). */
export async function probeHealth(intakeUrl: string): Promise<'up' | 'starting' | 'down'> {
  try {
    const res = await fetch(`${intakeUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return res.status === 200 ? 'up' : res.status === 503 ? 'starting' : 'down';
  } catch {
    return 'down';
  }
}

async function adminJson<T>(intakeUrl: string, method: 'GET' | 'POST', path: string): Promise<T> {
  const res = await fetch(`${intakeUrl}${path}`, { method, signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: is this a local stack (npm start)?`);
  return (await res.json()) as T;
}

/**
 * GET /__local/info: where a running stack's emulator and dynalite listen. Undefined when the answer
 * is not one (a stack from before the route, or something else on PORT): callers then fall back to
 * their own EMULATOR_PORT / DYNAMODB_PORT / LEDGER_TABLE.
 */
export async function readStackInfo(intakeUrl: string): Promise<LocalStackInfo | undefined> {
  try {
    const res = await fetch(`${intakeUrl}${LOCAL_INFO_PATH}`, { signal: AbortSignal.timeout(2_000) });
    if (res.status !== 200) {
      await res.body?.cancel();
      return undefined;
    }
    const parsed = LocalStackInfoSchema.safeParse(await res.json());
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The `npm start` on PORT, as found: `info` is its own account of where its parts are, when it gave one. */
export type RunningStack =
  | { status: 'up'; intakeUrl: string; info: LocalStackInfo | undefined }
  | { status: 'starting' | 'down'; intakeUrl: string };

/**
 * Looks for an `npm start` on the configured PORT (0: there is none to look for), waiting up to
 * `waitMs` while it answers /healthz 503 (still starting).
 */
export async function findRunningStack(config: LocalConfig, options: { waitMs?: number; pollMs?: number } = {}): Promise<RunningStack> {
  const intakeUrl = loopback(config.ports.intake);
  if (config.ports.intake === 0) return { status: 'down', intakeUrl };
  const deadline = Date.now() + (options.waitMs ?? 0);
  let health = await probeHealth(intakeUrl);
  while (health === 'starting' && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, options.pollMs ?? 500));
    health = await probeHealth(intakeUrl);
  }
  if (health !== 'up') return { status: health, intakeUrl };
  return { status: 'up', intakeUrl, info: await readStackInfo(intakeUrl) };
}

/**
 * This process's configuration, following the running stack's emulator configuration file when this
 * process was not told one (EMULATOR_CONFIG unset): operator commands then log in as the stack does,
 * without the user repeating `npm start`'s EMULATOR_CONFIG. The secret is read from the file, never served.
 */
export async function configFollowingStack(
  config: LocalConfig,
  info: LocalStackInfo | undefined,
  env: NodeJS.ProcessEnv,
): Promise<LocalConfig> {
  const path = info?.emulator.configPath;
  if (path === undefined || path === config.emulatorConfigPath || env[LOCAL_ENV.EMULATOR_CONFIG]?.trim()) return config;
  return resolveLocalConfig({ ...env, [LOCAL_ENV.EMULATOR_CONFIG]: path });
}

/**
 * Connects to an `npm start` on the configured PORT. With the stack's `info`, the emulator and
 * dynalite are reached where the stack says they are; without it, on this process's own ports (same
 * environment, same defaults). The secrets always come from this process's configuration.
 */
export function connectToRunningStack(config: LocalConfig, info?: LocalStackInfo): LocalStackHandle {
  if (info !== undefined && info.emulator.clientId !== config.clientId) {
    // The Open API secret is never served, so it can only come from the same configuration file.
    throw new ConfigurationError(
      'emulator_client_mismatch',
      `the local stack logs in to the emulator as client ${info.emulator.clientId}, but ${LOCAL_ENV.EMULATOR_CONFIG} ` +
        `(${config.emulatorConfigPath}) names client ${config.clientId} first: pass the same ${LOCAL_ENV.EMULATOR_CONFIG} as npm start`,
    );
  }
  const intakeUrl = loopback(config.ports.intake);
  const emulatorUrl = info?.emulator.url ?? loopback(config.ports.emulator);
  const dynamodbUrl = info?.dynamodb.url ?? loopback(config.ports.dynamodb);
  const tableName = info?.dynamodb.tableName ?? config.tableName;
  const documentClient = createDocumentClient({ endpoint: dynamodbUrl, ...LOCAL_AWS });
  const processing = info?.processing ?? config.processing;
  // The local stack's one budget, in its DynamoDB: an operator command draws from it beside the workers.
  const openapi = createOpenApiClient({
    credentials: staticCredentials({ baseUrl: emulatorUrl, clientId: config.clientId, clientSecret: config.clientSecret }),
    ...upstreamBudgetOn({ client: documentClient, tableName }, processing.upstreamBudgetPerMinute),
  });
  // A stack that does not tell its sources leaves the commands to their own defaults.
  const sources = info?.sourcesConfig === undefined ? undefined : loadSources(info.sourcesConfig);
  const ledger = createLedger({
    client: documentClient,
    tableName,
    clock: Date.now,
    ttlDays: processing.ledgerTtlDays,
    leaseSeconds: processing.leaseSeconds,
  });
  const queueStats = () => adminJson<LocalQueueStats>(intakeUrl, 'GET', '/__local/queue');
  return {
    intakeUrl,
    emulatorUrl,
    dynamodbUrl,
    tableName,
    documentClient,
    openapi,
    ledger,
    processing,
    sources,
    queueStats,
    ...(info?.squareOrders ? { squareOrders: info.squareOrders } : {}),
    ...(info?.smaregi ? { smaregi: info.smaregi } : {}),
    deadLetters: async () => (await adminJson<{ messages: ListedDeadLetter[] }>(intakeUrl, 'GET', '/__local/dlq')).messages,
    redrive: async () => (await adminJson<{ moved: number }>(intakeUrl, 'POST', '/__local/redrive')).moved,
    async waitForIdle(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = await queueStats();
        if (s.visible + s.processing + s.waitingRetry === 0 && s.runningBatches === 0) return;
        if (Date.now() > deadline) {
          throw new Error(
            `the queue is not idle after ${timeoutMs} ms (visible ${s.visible}, processing ${s.processing}, waiting retry ${s.waitingRetry})`,
          );
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      await openapi.close();
      documentClient.destroy();
    },
  };
}

/** The `npm start` on the configured PORT, up; else a ConfigurationError (no_local_stack) saying how to start it. */
export async function requireRunningStack(config: LocalConfig): Promise<Extract<RunningStack, { status: 'up' }>> {
  const found = await findRunningStack(config);
  if (found.status !== 'up')
    throw new ConfigurationError(
      'no_local_stack',
      `no local stack answers at ${found.intakeUrl}: start it with npm start (or pass --stage for AWS)`,
    );
  return found;
}
