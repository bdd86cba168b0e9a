import { startEmulator, type EmulatorConfig, parseConfig, DEMO_CONFIG_PATH, loadConfigFile } from '../emulator/index.js';
import {
  depsFromEnvironment as processDepsFromEnvironment,
  makeHandler as makeProcessHandler,
  type ProcessEventsDeps,
} from '../functions/process-events.js';
import {
  depsFromEnvironment as receiveDepsFromEnvironment,
  makeHandler as makeReceiveHandler,
  type ReceiveWebhookDeps,
} from '../functions/receive-webhook.js';
import { ENV } from '../shared/config/index.js';
import type { Ledger } from '../shared/ledger/index.js';
import type { Logger } from '../shared/logging/index.js';
import { parseJsonOrUndefined } from '../shared/text/index.js';
import { firstClientLogin, LOCAL_DEFAULTS } from './config.js';
import { createLocalQuarantineTable, startLocalDynamoDb } from './dynamodb/index.js';
import { localTiming, timingEnvironment } from './timing.js';
import { defaultSquareNotificationUrl, squareAmountBasis, withSquareSource } from './square.js';
import { startSquareOrdersStandIn, type SquareOrdersStandIn } from './square-orders/server.js';
import { SQUARE_ORDERS_ENV } from '../shared/square-orders/index.js';
import { type LocalSmaregi, type LocalSmaregiOptions, localSmaregiEnvironment, startLocalSmaregi } from './smaregi/index.js';
import { adminRoutes } from './admin.js';
import { consoleRoutes, deferredSource, localConsoleSource } from '../console/index.js';
import type { ConsoleSource } from '../console/index.js';
import { createDocumentClient } from '../shared/ledger/index.js';
import { createQuarantineStore, DEFAULT_QUARANTINE_TTL_DAYS } from '../shared/quarantine/index.js';
import { LOCAL_AWS } from './dynamodb/index.js';
import { enqueueRoute } from './enqueue-route.js';
import { SHOPIFY_ENROLMENT_ENV, withShopifyEnrolment } from './customers.js';
import { depsFromEnvironment as appProxyDepsFromEnvironment, makeHandler as makeAppProxyHandler } from '../functions/shopify-app-proxy.js';
import { recordAcceptedDelivery, type ShopifyAdminStandIn, type ShopStore, startShopifyAdminStandIn } from './shopify-admin/index.js';
import type { LocalStackInfo } from './info.js';
import { type ApiHandler, type LocalHttpServer, startLocalHttpServer } from './http/index.js';
import { lambdaContext } from './lambda/context.js';
import { createLocalQueue, type DeadLetter, type LocalQueue, type LocalQueueOptions, systemClock } from './queue/index.js';
import { type RecoveryTicker, startRecoveryTicker } from './recovery/ticker.js';
import { openApiProbe } from '../shared/consumer/index.js';

export interface LocalStackOptions {
  /** 0 (the default for each) picks a free port. */
  ports?: { intake?: number; emulator?: number; dynamodb?: number; shopifyAdmin?: number; squareOrders?: number; smaregi?: number };
  /** The Smaregi source's contract, webhook header and secret; default: the demo values (local/smaregi). */
  smaregi?: LocalSmaregiOptions;
  /** An emulator configuration (emulator/README.md, "Configuration"); default: the demo configuration. */
  emulatorConfig?: unknown;
  /** Webhook signing secrets per source (current first); default: the demo secrets. */
  webhookSecrets?: { shopify?: string[]; pos?: string[]; square?: string[] };
  /** The URL Square signs with the body; default: this intake's `/webhooks/square`. */
  squareNotificationUrl?: string;
  tableName?: string;
  /** More environment for the handlers: processing settings, SOURCES_CONFIG, Powertools. */
  env?: NodeJS.ProcessEnv;
  /** The file the emulator configuration came from: served on /__local/info so operator commands read the same login. */
  emulatorConfigPath?: string;
  /**
   * Queue behaviour (clock, concurrency). Visibility timeout and receive count come from the timing
   * derivation of `env` (local/timing.ts); overriding them here is for tests of the queue itself.
   */
  queue?: Omit<LocalQueueOptions, 'onDeadLetter' | 'onDeduplicated'>;
  /**
   * Replaces parts of the worker's dependencies (the chaos runs pass `checkpoint`). A function is
   * called once the emulator and dynalite listen, with their addresses (ports may be picked at start).
   */
  processOverrides?: Partial<ProcessEventsDeps> | ((started: StartedParts) => Partial<ProcessEventsDeps>);
  receiveOverrides?: Partial<ReceiveWebhookDeps>;
  /** Where the stack's own lines go (dead letters, handler failures); default: nowhere. */
  log?: (line: string) => void;
  /**
   * The handlers' logs: `powertools` (their JSON lines and metrics on stdout, as in Lambda), `compact`
   * (one short line each through `log`), or `off` (default).
   */
  handlerLogs?: 'powertools' | 'compact' | 'off';
}

/** What is known once the emulator and dynalite are up (before the handlers are built). */
export interface StartedParts {
  urls: { emulator: string; dynamodb: string };
  openApi: { baseUrl: string; clientId: string; clientSecret: string };
  tableName: string;
}

export interface LocalStack {
  urls: { intake: string; emulator: string; dynamodb: string; shopifyAdmin: string; squareOrders: string; smaregi: string };
  /** Smaregi's Platform API stand-in (POST /__smaregi/customers and /__smaregi/transactions) and the source's settings. */
  smaregi: LocalSmaregi;
  /** The Shopify GraphQL Admin API stand-in, holding every Shopify order and refund the intake accepted. */
  shopifyAdmin: ShopifyAdminStandIn;
  /** Square's Orders API stand-in (orders seeded with POST /__square/orders). */
  squareOrders: SquareOrdersStandIn;
  /** What the Square source earns on (`amount.basis`; default `amount`). */
  squareBasis: string;
  /** The Open API login the worker uses (the emulator configuration's first client and first secret). */
  openApi: { baseUrl: string; clientId: string; clientSecret: string };
  webhookSecrets: { shopify: string[]; pos: string[]; square: string[] };
  /** The notification URL the Square source verifies with. */
  squareNotificationUrl: string;
  tableName: string;
  queue: LocalQueue;
  /** Probes a paused upstream and resumes the queue (the deployed stack's scheduled recovery probe). */
  recovery: RecoveryTicker;
  /** The ledger the worker writes, for reading records (the same module and table). */
  ledger: Ledger;
  /** The environment the handlers were built from (secrets included: do not print it). */
  handlerEnv: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/**
 * The whole system in this process: the emulator, dynalite with the ledger table, the receiver behind
 * a local API Gateway, and the in-process FIFO queue feeding the worker. The handlers are the Lambda
 * files' own makeHandler/depsFromEnvironment, built from an environment that points them at the local
 * parts; only the queue (SQS in AWS) and the log sinks go in through their overrides.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const log = options.log ?? (() => {});
  const closers: (() => Promise<void>)[] = [];
  const closeFirst: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const close of [...closeFirst.splice(0), ...closers.splice(0).reverse()]) {
      await close().catch((e: unknown) => log(`close failed: ${e instanceof Error ? e.message : String(e)}`));
    }
  };
  let ready = false;

  try {
    const config: EmulatorConfig =
      options.emulatorConfig === undefined ? await loadConfigFile(DEMO_CONFIG_PATH) : parseConfig(options.emulatorConfig);
    const login = firstClientLogin(config);
    // The one derivation of every timing setting (as in the stack); a bad combination refuses to start.
    const timing = localTiming(options.env ?? {});
    const tableName = options.tableName ?? LOCAL_DEFAULTS.ledgerTable;
    const webhookSecrets = {
      shopify: options.webhookSecrets?.shopify ?? [LOCAL_DEFAULTS.shopifySecret],
      pos: options.webhookSecrets?.pos ?? [LOCAL_DEFAULTS.posSecret],
      square: options.webhookSecrets?.square ?? [LOCAL_DEFAULTS.squareSignatureKey],
    };

    // Intake listens first: while the rest starts, /healthz answers 503 and webhooks 503, as a
    // gateway does before its integration is ready.
    let receive: ApiHandler | undefined;
    let appProxy: ApiHandler | undefined;
    let queueRef: LocalQueue | undefined;
    let infoRef: LocalStackInfo | undefined;
    let consoleRef: ConsoleSource | undefined;
    const notReady = { statusCode: 503, headers: { 'content-type': 'application/json' }, body: '{"message":"Service Unavailable"}' };
    let shopStore: ShopStore | undefined;
    const intake: ApiHandler = async (event, context) => {
      if (!receive) return notReady;
      const result = await receive(event, context);
      try {
        if (shopStore) recordAcceptedDelivery(shopStore, event, result);
      } catch (e) {
        log(`[shopify-admin] could not store an accepted delivery: ${e instanceof Error ? e.message : 'invalid'}`);
      }
      return result;
    };
    const http: LocalHttpServer = await startLocalHttpServer({
      port: options.ports?.intake ?? 0,
      apiRoutes: {
        'POST /webhooks/shopify': intake,
        'POST /webhooks/pos': intake,
        'POST /webhooks/square': intake,
        'POST /webhooks/smaregi': intake,
        // The Shopify App Proxy's link request (its proxy URL: <intake>/proxy/shopify).
        'GET /proxy/shopify/link': async (event, context) => (appProxy ? appProxy(event, context) : notReady),
      },
      localRoutes: {
        ...adminRoutes({ queue: () => queueRef, info: () => infoRef }),
        ...enqueueRoute(() => queueRef),
        // The operator console (console/): its page and API under /__local/console/.
        ...consoleRoutes(deferredSource(() => consoleRef)),
      },
      isReady: () => ready,
      onHandlerError: (route, e) => log(`${route} failed: ${e instanceof Error ? e.name : 'error'}`),
    });
    // Closed first: no new webhooks while the rest shuts down.
    closeFirst.push(() => http.close());
    const squareNotificationUrl = options.squareNotificationUrl ?? defaultSquareNotificationUrl(http.url);

    const emulator = await startEmulator({ port: options.ports?.emulator ?? 0, config });
    closers.push(() => emulator.close());
    const dynamo = await startLocalDynamoDb({ port: options.ports?.dynamodb ?? 0, tableName });
    closers.push(() => dynamo.close());
    const shopifyAdmin = await startShopifyAdminStandIn({
      port: options.ports?.shopifyAdmin ?? 0,
      accessToken: LOCAL_DEFAULTS.shopifyAdminToken,
    });
    closers.push(() => shopifyAdmin.close());
    shopStore = shopifyAdmin.store;
    const squareOrders = await startSquareOrdersStandIn({
      port: options.ports?.squareOrders ?? 0,
      accessToken: LOCAL_DEFAULTS.squareOrdersToken,
    });
    closers.push(() => squareOrders.close());
    const smaregi = await startLocalSmaregi({ ...options.smaregi, port: options.ports?.smaregi ?? 0 });
    closers.push(() => smaregi.standIn.close());
    // The demo and the CLI find these through GET /__local/info: ports may differ from their defaults.
    const quarantineTable = LOCAL_DEFAULTS.quarantineTable;
    await createLocalQuarantineTable(dynamo.endpoint, quarantineTable);
    infoRef = {
      emulator: {
        url: emulator.url,
        clientId: login.clientId,
        ...(options.emulatorConfigPath ? { configPath: options.emulatorConfigPath } : {}),
      },
      dynamodb: { url: dynamo.endpoint, tableName, quarantineTable },
      shopifyAdmin: { url: shopifyAdmin.url },
    };

    const handlerEnv: NodeJS.ProcessEnv = {
      POWERTOOLS_SERVICE_NAME: 'loyalty-points-bridge',
      POWERTOOLS_METRICS_NAMESPACE: 'LoyaltyPointsBridge',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      ...options.env,
      ...timingEnvironment(timing),
      [ENV.LEDGER_TABLE]: tableName,
      // The activity record (shared/activity) lives in the ledger table, as in the stack.
      [ENV.ACTIVITY_TABLE]: tableName,
      [ENV.QUARANTINE_TABLE]: quarantineTable,
      [ENV.DYNAMODB_ENDPOINT]: dynamo.endpoint,
      [ENV.OPENAPI_BASE_URL]: emulator.url,
      [ENV.OPENAPI_CLIENT_ID]: login.clientId,
      [ENV.OPENAPI_CLIENT_SECRET]: login.clientSecret,
      // Both spellings: intake reads `<SOURCE>_WEBHOOK_SECRETS` first, then `<SOURCE>_WEBHOOK_SECRET`.
      [ENV.SHOPIFY_WEBHOOK_SECRET]: webhookSecrets.shopify.join(','),
      SHOPIFY_WEBHOOK_SECRETS: webhookSecrets.shopify.join(','),
      POS_WEBHOOK_SECRET: webhookSecrets.pos.join(','),
      [ENV.POS_WEBHOOK_SECRETS]: webhookSecrets.pos.join(','),
      SQUARE_WEBHOOK_SECRETS: webhookSecrets.square.join(','),
      // The worker reads Square orders from the stand-in, for a Square source on `subtotal_excluding_tax`.
      [SQUARE_ORDERS_ENV]:
        options.env?.[SQUARE_ORDERS_ENV] ??
        JSON.stringify({ square: { accessToken: LOCAL_DEFAULTS.squareOrdersToken, origin: squareOrders.url } }),
    };
    const sourcesConfig = withShopifyEnrolment(
      withSquareSource(handlerEnv[ENV.SOURCES_CONFIG], squareNotificationUrl),
      options.env?.[SHOPIFY_ENROLMENT_ENV],
    );
    if (sourcesConfig !== undefined) handlerEnv[ENV.SOURCES_CONFIG] = sourcesConfig;
    const squareBasis = squareAmountBasis(sourcesConfig);
    infoRef.squareOrders = { url: squareOrders.url, basis: squareBasis };
    Object.assign(handlerEnv, localSmaregiEnvironment(smaregi, handlerEnv, ENV.SOURCES_CONFIG));
    infoRef.smaregi = { url: smaregi.standIn.url, contractId: smaregi.contractId };
    // These would send the handlers to AWS (Secrets Manager, SQS) instead of the local parts.
    for (const name of [ENV.WEBHOOK_SECRET_ARNS, ENV.OPENAPI_SECRET_ARN, ENV.QUEUE_URL]) delete handlerEnv[name];

    const queue = createLocalQueue({
      visibilityTimeoutMs: timing.visibilityTimeoutSeconds * 1000,
      maxReceiveCount: timing.maxReceiveCount,
      ...options.queue,
      onDeduplicated: (m) => log(`[queue] dropped a copy of delivery ${m.deduplicationId} (FIFO deduplication, 5 minutes)`),
      onDeadLetter: (m) =>
        log(`[queue] dead-lettered ${describeLetter(m)} after ${m.receiveCount} receives${m.lastError ? `: ${m.lastError}` : ''}`),
    });

    // Built from the environment exactly as in Lambda; only the queue (SQS there) is swapped in.
    const mode = options.handlerLogs ?? 'off';
    receive = makeReceiveHandler(
      receiveDepsFromEnvironment(handlerEnv, {
        queue,
        // The metric line (CloudWatch EMF on stdout) only means something in Lambda; the log says it here.
        ...(mode === 'powertools'
          ? {}
          : {
              logger: localLogger('intake', mode === 'compact' ? log : undefined),
              countQuarantined: () => undefined,
              recordDelivery: () => undefined,
            }),
        ...options.receiveOverrides,
      }),
    );
    const appProxyDeps = appProxyDepsFromEnvironment(handlerEnv, {
      queue,
      ...(mode === 'powertools' ? {} : { logger: localLogger('app-proxy', mode === 'compact' ? log : undefined) }),
    });
    closers.push(async () => {
      const client: unknown = appProxyDeps.openapi;
      if (typeof client === 'object' && client !== null && 'close' in client && typeof client.close === 'function') await client.close();
    });
    appProxy = makeAppProxyHandler(appProxyDeps);
    const overrides =
      typeof options.processOverrides === 'function'
        ? options.processOverrides({
            urls: { emulator: emulator.url, dynamodb: dynamo.endpoint },
            openApi: { baseUrl: emulator.url, ...login },
            tableName,
          })
        : (options.processOverrides ?? {});
    const processDeps = processDepsFromEnvironment(handlerEnv, {
      // Waiting messages are set aside and deferred on the local queue (SendMessage, ChangeMessageVisibility), as on SQS.
      visibility: queue,
      queue,
      // The worker pauses the queue while the Open API is down; the recovery ticker below resumes it.
      pull: queue,
      ...(mode === 'powertools' ? {} : { logger: localLogger('worker', mode === 'compact' ? log : undefined), metrics: discardedMetrics }),
      ...overrides,
    });
    const ledger = processDeps.ledger;
    const openapi: unknown = processDeps.openapi;
    closers.push(async () => {
      // The keep-alive pool of the client the handler built; an overriding client belongs to its owner.
      if (overrides.openapi !== undefined) return;
      if (typeof openapi === 'object' && openapi !== null && 'close' in openapi && typeof openapi.close === 'function') {
        await (openapi.close as () => Promise<void>).call(openapi);
      }
    });
    // Closed before the client above: the running batch finishes with a working client.
    closers.push(() => queue.close());
    const processEvents = makeProcessHandler(processDeps);
    queue.start(async (event) => processEvents(event, lambdaContext('process-events', timing.workerTimeoutSeconds * 1000)));
    queueRef = queue;
    const recovery = startRecoveryTicker({
      clock: options.queue?.clock ?? systemClock,
      pull: queue,
      probe: openApiProbe(processDeps.openapi, 'shopify'),
      log,
    });
    closeFirst.push(async () => recovery.stop());
    const consoleClient = createDocumentClient({ endpoint: dynamo.endpoint, ...LOCAL_AWS });
    closers.push(async () => consoleClient.destroy());
    consoleRef = localConsoleSource({
      intakeUrl: http.url,
      queue,
      ledger,
      client: consoleClient,
      tableName,
      openapi: processDeps.openapi,
      quarantine: createQuarantineStore({
        client: consoleClient,
        tableName: quarantineTable,
        clock: Date.now,
        ttlDays: DEFAULT_QUARANTINE_TTL_DAYS,
      }),
    });

    ready = true;
    return {
      urls: {
        intake: http.url,
        emulator: emulator.url,
        dynamodb: dynamo.endpoint,
        shopifyAdmin: shopifyAdmin.url,
        squareOrders: squareOrders.url,
        smaregi: smaregi.standIn.url,
      },
      smaregi,
      shopifyAdmin,
      squareOrders,
      squareBasis,
      openApi: { baseUrl: emulator.url, ...login },
      webhookSecrets,
      squareNotificationUrl,
      tableName,
      queue,
      recovery,
      ledger,
      handlerEnv,
      close: async () => {
        ready = false;
        await closeAll();
      },
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
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
