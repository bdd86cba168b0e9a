import { withShopifyEarnAfter } from './earn-after.js';
import {
  depsFromEnv as processDepsFromEnv,
  makeHandler as makeProcessHandler,
  makeEarnDue,
  type ProcessEventsDeps,
  type ProcessEventsOverrides,
} from '../functions/process-events.js';
import { depsFromEnv as receiveDepsFromEnv, makeHandler as makeReceiveHandler } from '../functions/receive-webhook.js';
import { depsFromEnv as appProxyDepsFromEnv, makeHandler as makeAppProxyHandler } from '../functions/shopify-app-proxy.js';
import { ENV, minWebhookSecretChars, type Timing, webhookSecretsFromEnv } from '../shared/config/index.js';
import { FUNCTION_LEDGER_KEYS, guardLeadingKeys, type Ledger } from '../shared/ledger/index.js';
import { documentClientFromEnv } from '../shared/dynamodb/index.js';
import type { DueEarns } from '../shared/points/index.js';
import type { Logger } from '../shared/logging/index.js';
import { type OpenApiClient, secretsManagerCredentials } from '../shared/openapi/index.js';
import { SMAREGI_ENV, type TillMirrorDeps, tillMirrorDepsFromEnv } from '../shared/sources/smaregi/index.js';
import { loadSourceSettings, loadSources } from '../shared/sources/index.js';
import { parseJsonOrUndefined } from '../shared/text/index.js';
import { SHOPIFY_ENROLMENT_ENV, withShopifyEnrolment } from './customers.js';
import type { ApiHandler } from './http/index.js';
import { lambdaContext } from './lambda/context.js';
import { withShopifyRedemption } from './redemption.js';
import {
  APP_PROXY_REDEMPTION_ADMIN_ENV,
  REDEMPTION_ADMIN_ENV,
  type RedemptionDeps,
  redemptionDepsFromEnv,
} from '../shared/redemption/index.js';
import { createLocalQueue, type DeadLetter, type LocalQueue } from './queue/index.js';
import { createLocalSecretStore, LOCAL_SECRET_IDS, type LocalSecretStore } from './secret-store.js';
import { standInEnvironment } from '../stand-ins/registry.js';
import { withSquareSource } from './square.js';
import type { LocalStackOptions, StackSettings, StartedServices } from './stack-types.js';
import { timingEnvironment } from '../kit/local-stack/timing.js';

/** The local stack's handlers: their environment, the queue between them, and the Lambda files' own builders. */

type Log = (line: string) => void;

/** The handlers built for the stack, and what the stack reads from the worker's dependencies. */
export interface StackHandlers {
  /** The ledger the worker writes, for reading records (the same module and table). */
  ledger: Ledger;
  /** The worker's Open API client (the recovery probe and the console use it). */
  openapi: ProcessEventsDeps['openapi'];
  /** The App Proxy's redemptions (the sweep, the operator's list); undefined when the Shopify source does not redeem. */
  redemption?: RedemptionDeps;
  /** The worker's `days` ticker of provisional points (a schedule in AWS; local/earn-after.ts runs it). */
  earnDue: () => Promise<DueEarns>;
  /** Under a Smaregi source's tillPoints membership: the till mirror, whose unfinished steps the local ticker finishes (the nightly audit in AWS). */
  tillMirror?: TillMirrorDeps;
}

/** The environment the handlers are built from: the caller's, pointed at the local parts. */
export function handlerEnvironment(
  options: LocalStackOptions,
  settings: StackSettings,
  services: StartedServices,
  squareNotificationUrl: string,
): NodeJS.ProcessEnv {
  const { webhookSecrets, login } = settings;
  const handlerEnv: NodeJS.ProcessEnv = {
    POWERTOOLS_SERVICE_NAME: 'loyalty-points-bridge',
    POWERTOOLS_METRICS_NAMESPACE: 'LoyaltyPointsBridge',
    POWERTOOLS_LOG_LEVEL: 'INFO',
    ...options.env,
    ...timingEnvironment(settings.timing),
    [ENV.LEDGER_TABLE]: settings.tableName,
    // The one upstream budget's counters, in the local ledger table as in the stack's.
    [ENV.UPSTREAM_BUDGET_TABLE]: settings.tableName,
    // The activity record (shared/activity) lives in the ledger table, as in the stack.
    [ENV.ACTIVITY_TABLE]: settings.tableName,
    [ENV.QUARANTINE_TABLE]: services.quarantineTable,
    [ENV.DYNAMODB_ENDPOINT]: services.dynamo.endpoint,
    [ENV.OPENAPI_BASE_URL]: services.emulator.url,
    [ENV.OPENAPI_CLIENT_ID]: login.clientId,
    [ENV.OPENAPI_CLIENT_SECRET]: login.clientSecret,
    // Both spellings: intake reads `<SOURCE>_WEBHOOK_SECRETS` first, then `<SOURCE>_WEBHOOK_SECRET`.
    [ENV.SHOPIFY_WEBHOOK_SECRET]: webhookSecrets.shopify.join(','),
    SHOPIFY_WEBHOOK_SECRETS: webhookSecrets.shopify.join(','),
    POS_WEBHOOK_SECRET: webhookSecrets.pos.join(','),
    [ENV.POS_WEBHOOK_SECRETS]: webhookSecrets.pos.join(','),
    SQUARE_WEBHOOK_SECRETS: webhookSecrets.square.join(','),
  };
  const sourcesConfig = withShopifyEarnAfter(
    withShopifyRedemption(
      withShopifyEnrolment(withSquareSource(handlerEnv[ENV.SOURCES_CONFIG], squareNotificationUrl), options.env?.[SHOPIFY_ENROLMENT_ENV]),
      options.env ?? {},
    ),
    options.env ?? {},
  );
  if (sourcesConfig !== undefined) handlerEnv[ENV.SOURCES_CONFIG] = sourcesConfig;
  // Each stand-in points its sender at itself (its API access, its webhook secret; what the caller set
  // wins) and may enable its source in SOURCES_CONFIG: stand-ins/<name>/local.ts.
  Object.assign(handlerEnv, standInEnvironment(services.standIns, handlerEnv, ENV.SOURCES_CONFIG));
  // These would send the handlers to AWS (Secrets Manager, SQS) instead of the local parts.
  for (const name of [ENV.WEBHOOK_SECRET_ARNS, ENV.OPENAPI_SECRET_ARN, ENV.QUEUE_URL]) delete handlerEnv[name];
  return handlerEnv;
}

/** The local SQS FIFO queue with the timing derivation's visibility timeout and receive count. */
export function createStackQueue(options: LocalStackOptions, timing: Timing, workers: number, log: Log): LocalQueue {
  return createLocalQueue({
    visibilityTimeoutMs: timing.visibilityTimeoutSeconds * 1000,
    maxReceiveCount: timing.maxReceiveCount,
    // One batch per worker at a time, as the event source's maximum concurrency.
    concurrency: workers,
    ...options.queue,
    onDeduplicated: (m) => log(`[queue] dropped a copy of delivery ${m.deduplicationId} (FIFO deduplication, 5 minutes)`),
    onDeadLetter: (m) =>
      log(`[queue] dead-lettered ${describeLetter(m)} after ${m.receiveCount} receives${m.lastError ? `: ${m.lastError}` : ''}`),
  });
}

/**
 * The store the handlers read their secrets from, filled with what the environment derivation above
 * gives each configured source (so `npm start` keeps its settings) and the Open API login.
 */
export async function createStackSecretStore(handlerEnv: NodeJS.ProcessEnv): Promise<LocalSecretStore> {
  const fromEnv = webhookSecretsFromEnv(handlerEnv);
  const webhook: Record<string, readonly string[]> = {};
  for (const source of loadSources(handlerEnv[ENV.SOURCES_CONFIG]).keys()) {
    // None configured: left out, so the receiver answers not_configured as before.
    webhook[source] = await fromEnv.get(source).catch(() => []);
  }
  return createLocalSecretStore({
    webhook,
    openapi: {
      baseUrl: handlerEnv[ENV.OPENAPI_BASE_URL] ?? '',
      clientId: handlerEnv[ENV.OPENAPI_CLIENT_ID] ?? '',
      clientSecret: handlerEnv[ENV.OPENAPI_CLIENT_SECRET] ?? '',
    },
  });
}

/** The handlers' readers of the store: the same parsing as over Secrets Manager. */
function storeReaders(handlerEnv: NodeJS.ProcessEnv, store: LocalSecretStore) {
  const sources = loadSources(handlerEnv[ENV.SOURCES_CONFIG]);
  return {
    secrets: webhookSecretsFromEnv(
      { [ENV.WEBHOOK_SECRET_ARNS]: JSON.stringify(store.webhookSecretIds) },
      { reader: store, minLength: (name) => minWebhookSecretChars(sources.get(name)?.kind) },
    ),
    credentials: secretsManagerCredentials(LOCAL_SECRET_IDS.openapi, store),
  };
}

interface HandlerParts {
  options: LocalStackOptions;
  settings: StackSettings;
  services: StartedServices;
  handlerEnv: NodeJS.ProcessEnv;
  /** Where the handlers read their secrets (local/secret-store.ts). */
  secretStore: LocalSecretStore;
  queue: LocalQueue;
  log: Log;
  /** Where the handlers go as they are built (intake's routes answer through it). */
  wire: { receive?: ApiHandler; appProxy?: ApiHandler };
  /** Registers what the stack closes (newest first). */
  closeLater: (close: () => Promise<void>) => void;
}

/**
 * Built from the environment exactly as in Lambda; only the queue (SQS there) is swapped in. The
 * worker is attached to the queue last.
 */
export function buildStackHandlers(parts: HandlerParts): StackHandlers {
  const { options, handlerEnv, queue, log } = parts;
  const mode = options.handlerLogs ?? 'off';
  const print = mode === 'compact' ? log : undefined;
  const readers = storeReaders(handlerEnv, parts.secretStore);
  parts.wire.receive = makeReceiveHandler(
    receiveDepsFromEnv(handlerEnv, {
      queue,
      secrets: readers.secrets,
      // The metric line (CloudWatch EMF on stdout) only means something in Lambda; the log says it here.
      ...(mode === 'powertools'
        ? {}
        : { logger: localLogger('intake', print), countQuarantined: () => undefined, recordDelivery: () => undefined }),
      ...options.receiveOverrides,
    }),
  );
  // The App Proxy holds its own discounts-only Admin token, as deployed; the sweep and the operator's list keep the shop's.
  // Its requests' counts are EMF lines on stdout (shared/upstream): in Lambda only, like the worker's metrics here.
  // No Smaregi access either, as deployed: its web legs' till mirrors go to the worker through the queue.
  const { [SMAREGI_ENV]: _smaregi, ...withoutSmaregi } = handlerEnv;
  const appProxyEnv = {
    ...withoutSmaregi,
    [REDEMPTION_ADMIN_ENV]: handlerEnv[APP_PROXY_REDEMPTION_ADMIN_ENV] ?? handlerEnv[REDEMPTION_ADMIN_ENV],
    ...(mode === 'powertools' ? {} : { POWERTOOLS_METRICS_DISABLED: 'true' }),
  };
  const appProxyDeps = appProxyDepsFromEnv(appProxyEnv, {
    queue,
    ...readers,
    ...(mode === 'powertools' ? {} : { logger: localLogger('app-proxy', print) }),
  });
  parts.closeLater(async () => {
    const client: unknown = appProxyDeps.openapi;
    if (typeof client === 'object' && client !== null && 'close' in client && typeof client.close === 'function') await client.close();
  });
  parts.wire.appProxy = makeAppProxyHandler(appProxyDeps);
  const logs = mode === 'powertools' ? {} : { logger: localLogger('worker', print), metrics: discardedMetrics };
  const worker = startWorker(parts, { ...logs, credentials: readers.credentials });
  const redemption = appProxyDeps.redemption && sweepDeps(handlerEnv, appProxyDeps.redemption);
  const openapi = worker.openapi as unknown as Partial<OpenApiClient>;
  const tillMirror =
    typeof openapi.getMember === 'function' && typeof openapi.listPoints === 'function'
      ? tillMirrorDepsFromEnv(
          handlerEnv,
          loadSourceSettings(handlerEnv[ENV.SOURCES_CONFIG]),
          { openapi: openapi as Pick<OpenApiClient, 'getMember' | 'listPoints'>, logger: localLogger('till-mirror', print) },
          () => parts.secretStore,
          Date.now,
        )
      : undefined;
  const smaregi = tillMirror?.smaregi as { close?: () => Promise<void> } | undefined;
  if (smaregi?.close) parts.closeLater(async () => smaregi.close?.());
  return { ...worker, ...(redemption ? { redemption } : {}), ...(tillMirror ? { tillMirror } : {}) };
}

/** The sweep's (and the operator's) redemption parts: the App Proxy's ledger and Open API, the shop's Admin token. */
function sweepDeps(env: NodeJS.ProcessEnv, proxy: RedemptionDeps): RedemptionDeps | undefined {
  return redemptionDepsFromEnv(env, loadSourceSettings(env[ENV.SOURCES_CONFIG]), proxy.source, {
    openapi: proxy.openapi,
    ledger: proxy.ledger,
    now: proxy.now,
    ...(proxy.logger ? { logger: proxy.logger } : {}),
  });
}

/**
 * The workers, as the stack runs them: `workers` of them (WORKER_CONCURRENCY, kit/local-stack/workers.ts),
 * each built from the environment as one container is, with its own Open API client, token, breaker and
 * view of the shared budget (its own slices), all drawing from the one budget in the local DynamoDB. The
 * queue hands each batch to an idle one, at most `workers` batches at a time (the event source's maximum
 * concurrency).
 */
function startWorker(parts: HandlerParts, logs: ProcessEventsOverrides): StackHandlers {
  const { options, settings, services, handlerEnv, queue } = parts;
  const overrides =
    typeof options.processOverrides === 'function'
      ? options.processOverrides({
          urls: { emulator: services.emulator.url, dynamodb: services.dynamo.endpoint },
          openApi: { baseUrl: services.emulator.url, ...settings.login },
          tableName: settings.tableName,
        })
      : (options.processOverrides ?? {});
  const containers = Array.from({ length: settings.workers }, (_, i) => {
    const deps = processDepsFromEnv(handlerEnv, {
      // Waiting messages are set aside and deferred on the local queue (SendMessage, ChangeMessageVisibility), as on SQS.
      visibility: queue,
      queue,
      // The worker pauses the queue while the Open API is down; the recovery ticker resumes it.
      pull: queue,
      // A token of its own, as a container of its own would hold.
      tokenScope: `worker-${i + 1}`,
      // The ledger as the worker's IAM grant lets it reach it (dynamodb:LeadingKeys on its own prefixes):
      // a key outside them is refused here as AccessDenied would refuse it in AWS (the quarantine table passes).
      documentClient: guardLeadingKeys(documentClientFromEnv(handlerEnv), FUNCTION_LEDGER_KEYS.worker, { tableName: settings.tableName }),
      ...logs,
      ...overrides,
    });
    const openapi: unknown = deps.openapi;
    parts.closeLater(async () => {
      // The keep-alive pool of the client the handler built; an overriding client belongs to its owner.
      if (overrides.openapi !== undefined) return;
      if (typeof openapi === 'object' && openapi !== null && 'close' in openapi && typeof openapi.close === 'function') {
        await (openapi.close as () => Promise<void>).call(openapi);
      }
    });
    return { deps, handle: makeProcessHandler(deps) };
  });
  // Closed before the clients above: the running batches finish with working clients.
  parts.closeLater(() => queue.close());
  const timeoutMs = settings.timing.workerTimeoutSeconds * 1000;
  const idle = [...containers].reverse();
  queue.start(async (event) => {
    // The queue runs at most `workers` batches at once: one is always idle here.
    const container = idle.pop() ?? (containers[0] as (typeof containers)[number]);
    try {
      return await container.handle(event, lambdaContext('process-events', timeoutMs));
    } finally {
      idle.push(container);
    }
  });
  const first = (containers[0] as (typeof containers)[number]).deps;
  return { ledger: first.ledger, openapi: first.openapi, earnDue: makeEarnDue(first) };
}

function describeLetter(m: DeadLetter): string {
  const event = parseJsonOrUndefined(m.body) as { eventId?: unknown } | null | undefined;
  if (typeof event?.eventId === 'string') return event.eventId;
  return `message ${m.messageId}`;
}

const discardedMetrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

/** The handlers' logger interface, printing `[worker] event processed key=value ...` or nothing. */
function localLogger(name: string, print: ((line: string) => void) | undefined): Logger {
  const write =
    (level: string) =>
    (message: string, extra: Record<string, unknown> = {}) => {
      if (print === undefined) return;
      const fields = Object.entries(extra)
        .filter(([key, v]) => v !== undefined && key !== 'messageId')
        .map(([key, v]) => `${key}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
      print([`[${name}]`, level === 'info' ? '' : level.toUpperCase(), message, ...fields].filter((p) => p !== '').join(' '));
    };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
