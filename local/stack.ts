import { parseJsonOrUndefined } from '../shared/text/index.js';
import { DEMO_CONFIG_PATH, loadConfigFile, parseConfig, startEmulator, type EmulatorConfig } from '../stand-ins/openapi/index.js';
import { consoleRoutes, deferredSource } from '../console/index.js';
import { localConsoleSource } from './console-source.js';
import type { ConsoleSource } from '../console/index.js';
import { ledgerPlannedPause, openApiProbe } from '../shared/consumer/index.js';
import { ENV, processingSettingsFromEnv } from '../shared/config/index.js';
import { loadSources, type SourceSet } from '../shared/sources/index.js';
import { SENDER_KINDS } from '../shared/sources/ops.entry.js';
import { createDocumentClient } from '../shared/ledger/index.js';
import { createQuarantineStore, DEFAULT_QUARANTINE_TTL_DAYS } from '../shared/quarantine/index.js';
import { adminRoutes } from './admin.js';
import { firstClientLogin, LOCAL_DEFAULTS } from '../kit/local-stack/config.js';
import { createLocalQuarantineTable, LOCAL_AWS, startLocalDynamoDb } from './dynamodb/index.js';
import { enqueueRoute } from './enqueue-route.js';
import { type ApiHandler, type LocalHttpServer, startLocalHttpServer } from './http/index.js';
import type { LocalStackInfo } from '../kit/local-stack/info.js';
import type { LocalQueue } from './queue/index.js';
import { systemClock } from './queue/index.js';
import { startRecoveryTicker } from './recovery/ticker.js';
import { defaultSquareNotificationUrl } from './square.js';
import { type StartedStandIns, standInInfo, standInsDelivered, standInUrls, startStandIns } from '../stand-ins/registry.js';
import { buildStackHandlers, createStackQueue, createStackSecretStore, handlerEnvironment, type StackHandlers } from './stack-handlers.js';
import { type LocalSecretStore, secretRoutes } from './secret-store.js';
import type { LocalStack, LocalStackOptions, StackSettings, StartedServices } from './stack-types.js';
import { localTiming } from '../kit/local-stack/timing.js';
import { localWorkerCount } from '../kit/local-stack/workers.js';
import { refuseShopMismatch, startSweepTicker, sweepRoute } from './redemption.js';
import { startEarnTicker } from './earn-after.js';
import { startTillMirrorTicker } from './till-mirror.js';
import type { RedemptionDeps } from '../shared/redemption/index.js';

export type { LocalStack, LocalStackOptions, StartedParts } from './stack-types.js';

type Closer = () => Promise<void>;
type Log = (line: string) => void;

/** What the stack closes: `first` in the order pushed (no new webhooks, no recovery), then `rest` newest first. */
interface Closers {
  first: Closer[];
  rest: Closer[];
}

/** What intake's routes reach: filled in as the stack starts, since intake listens before the rest. */
interface Wiring {
  ready: boolean;
  receive?: ApiHandler;
  appProxy?: ApiHandler;
  queue?: LocalQueue;
  info?: LocalStackInfo;
  console?: ConsoleSource;
  /** The senders' stand-ins, told of every request the intake answers (the Shopify Admin stand-in's shop). */
  standIns?: StartedStandIns;
  redemption?: RedemptionDeps;
  /** The handlers' secret store (`npm run rotate` without --stage). */
  secrets?: LocalSecretStore;
  sources?: SourceSet;
}

/**
 * The whole system in this process: the emulator, dynalite with the ledger table, the receiver behind
 * a local API Gateway, and the in-process FIFO queue feeding the worker. The handlers are the Lambda
 * files' own makeHandler/depsFromEnv, built from an environment that points them at the local
 * parts; only the queue (SQS in AWS) and the log sinks go in through their overrides.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const log = options.log ?? (() => {});
  const closers: Closers = { first: [], rest: [] };
  const wiring: Wiring = { ready: false };
  try {
    const settings = await stackSettings(options);
    const http = await startIntake(options, wiring, log);
    // Closed first: no new webhooks while the rest shuts down.
    closers.first.push(() => http.close());
    const squareNotificationUrl = options.squareNotificationUrl ?? defaultSquareNotificationUrl(http.url);
    const services = await startServices(options, settings, closers, wiring);
    const handlerEnv = handlerEnvironment(options, settings, services, squareNotificationUrl);
    if (wiring.info) {
      Object.assign(wiring.info, standInInfo(services.standIns, handlerEnv, ENV.SOURCES_CONFIG));
      wiring.info.processing = processingSettingsFromEnv(handlerEnv);
      wiring.info.sourcesConfig = handlerEnv[ENV.SOURCES_CONFIG] ?? '';
    }
    const queue = createStackQueue(options, settings.timing, settings.workers, log);
    const secretStore = await createStackSecretStore(handlerEnv);
    wiring.secrets = secretStore;
    wiring.sources = loadSources(handlerEnv[ENV.SOURCES_CONFIG]);
    const handlers = buildStackHandlers({
      options,
      settings,
      services,
      handlerEnv,
      secretStore,
      queue,
      log,
      wire: wiring,
      closeLater: (close) => closers.rest.push(close),
    });
    wiring.queue = queue;
    if (handlers.redemption) await refuseShopMismatch(handlers.redemption);
    const controlClient = createDocumentClient({ endpoint: services.dynamo.endpoint, ...LOCAL_AWS });
    closers.rest.push(async () => controlClient.destroy());
    const recovery = startRecoveryTicker({
      clock: options.queue?.clock ?? systemClock,
      pull: queue,
      probe: openApiProbe(handlers.openapi, 'shopify'),
      log,
      // `npm run pause` without --stage: the same record in the local ledger table.
      planned: ledgerPlannedPause({ client: controlClient, tableName: settings.tableName }),
    });
    closers.first.push(async () => recovery.stop());
    // The redemption sweep, every minute (a schedule in AWS: infra/constructs/scheduled-redemption-sweep.ts).
    const sweep = handlers.redemption ? startSweepTicker(handlers.redemption, log) : undefined;
    wiring.redemption = handlers.redemption;
    if (sweep) closers.first.push(async () => sweep.stop());
    // Till mirror steps left unfinished, every minute (the nightly audit in AWS: functions/audit-ledger.ts).
    const tillMirrorTicker = handlers.tillMirror ? startTillMirrorTicker(handlers.tillMirror, log) : undefined;
    if (tillMirrorTicker) closers.first.push(async () => tillMirrorTicker.stop());
    // Provisional points whose day has come, every minute (a schedule in AWS: infra/constructs/earn-schedule.ts).
    const earnTicker = startEarnTicker(handlers.earnDue, log);
    closers.first.push(async () => earnTicker.stop());
    wiring.console = startConsoleSource({ intakeUrl: http.url, services, settings, queue, handlers, closers });

    wiring.ready = true;
    const { emulator, dynamo, standIns } = services;
    return {
      urls: { intake: http.url, emulator: emulator.url, dynamodb: dynamo.endpoint, ...standInUrls(standIns) },
      standIns,
      openApi: { baseUrl: emulator.url, ...settings.login },
      webhookSecrets: settings.webhookSecrets,
      squareNotificationUrl,
      tableName: settings.tableName,
      queue,
      recovery,
      ledger: handlers.ledger,
      earnDue: handlers.earnDue,
      ...(handlers.redemption ? { redemption: handlers.redemption } : {}),
      handlerEnv,
      close: async () => {
        wiring.ready = false;
        await closeAll(closers, log);
      },
    };
  } catch (e) {
    await closeAll(closers, log);
    throw e;
  }
}

async function closeAll(closers: Closers, log: Log): Promise<void> {
  for (const close of [...closers.first.splice(0), ...closers.rest.splice(0).reverse()]) {
    await close().catch((e: unknown) => log(`close failed: ${e instanceof Error ? e.message : String(e)}`));
  }
}

async function stackSettings(options: LocalStackOptions): Promise<StackSettings> {
  const config: EmulatorConfig =
    options.emulatorConfig === undefined ? await loadConfigFile(DEMO_CONFIG_PATH) : parseConfig(options.emulatorConfig);
  const login = firstClientLogin(config);
  // The one derivation of every timing setting (as in the stack); a bad combination refuses to start.
  const timing = localTiming(options.env ?? {});
  const tableName = options.tableName ?? LOCAL_DEFAULTS.ledgerTable;
  // As many workers as the stack would run for this budget (WORKER_CONCURRENCY overrides).
  const workers = options.workers ?? localWorkerCount(options.env ?? {});
  const webhookSecrets = {
    shopify: options.webhookSecrets?.shopify ?? [LOCAL_DEFAULTS.shopifySecret],
    pos: options.webhookSecrets?.pos ?? [LOCAL_DEFAULTS.posSecret],
    square: options.webhookSecrets?.square ?? [LOCAL_DEFAULTS.squareSignatureKey],
  };
  return { config, login, timing, tableName, webhookSecrets, workers };
}

/**
 * Intake listens first: while the rest starts, /healthz answers 503 and webhooks 503, as a gateway
 * does before its integration is ready.
 */
/** The source names SOURCES_CONFIG gives settings (not `false`); a configuration that is no JSON object names none (intake reports it). */
function configuredSourceNames(sourcesConfig: string | undefined): string[] {
  const config = sourcesConfig ? parseJsonOrUndefined(sourcesConfig) : undefined;
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return [];
  return Object.entries(config)
    .filter(([name, v]) => typeof v === 'object' && v !== null && /^[a-z0-9][a-z0-9-]{0,31}$/.test(name))
    .map(([name]) => name);
}

function startIntake(options: LocalStackOptions, wiring: Wiring, log: Log): Promise<LocalHttpServer> {
  const notReady = { statusCode: 503, headers: { 'content-type': 'application/json' }, body: '{"message":"Service Unavailable"}' };
  const intake: ApiHandler = async (event, context) => {
    if (!wiring.receive) return notReady;
    const result = await wiring.receive(event, context);
    if (wiring.standIns) standInsDelivered(wiring.standIns, event, result, log);
    return result;
  };
  const appProxy: ApiHandler = async (event, context) => (wiring.appProxy ? wiring.appProxy(event, context) : notReady);
  return startLocalHttpServer({
    port: options.ports?.intake ?? 0,
    apiRoutes: {
      // Every sender kind's route, and (as in AWS) one per source SOURCES_CONFIG names (a second source of a kind).
      ...Object.fromEntries(
        [...new Set([...SENDER_KINDS, ...configuredSourceNames(options.env?.SOURCES_CONFIG)])].map((name) => [
          `POST /webhooks/${name}`,
          intake,
        ]),
      ),
      // The Shopify App Proxy's link request, confirmation (GET) and link (POST) (its proxy URL: <intake>/proxy/shopify).
      'GET /proxy/shopify/link': appProxy,
      'POST /proxy/shopify/link': appProxy,
      // Redemptions (docs/redemption.md): the points page, and redeem (its GET answers 405).
      'GET /proxy/shopify/points': appProxy,
      'POST /proxy/shopify/redeem': appProxy,
      'GET /proxy/shopify/redeem': appProxy,
    },
    localRoutes: {
      ...adminRoutes({ queue: () => wiring.queue, info: () => wiring.info }),
      ...enqueueRoute(() => wiring.queue),
      ...sweepRoute(() => wiring.redemption),
      ...secretRoutes(
        () => wiring.secrets,
        () => wiring.sources,
      ),
      // The operator console (console/): its page and API under /__local/console/.
      ...consoleRoutes(deferredSource(() => wiring.console)),
    },
    isReady: () => wiring.ready,
    onHandlerError: (route, e) => log(`${route} failed: ${e instanceof Error ? e.name : 'error'}`),
  });
}

/** The emulator, dynalite (ledger and quarantine tables) and the senders' stand-ins, each closed with the stack. */
async function startServices(
  options: LocalStackOptions,
  settings: StackSettings,
  closers: Closers,
  wiring: Wiring,
): Promise<StartedServices> {
  const emulator = await startEmulator({ port: options.ports?.emulator ?? 0, config: settings.config });
  closers.rest.push(() => emulator.close());
  const dynamo = await startLocalDynamoDb({ port: options.ports?.dynamodb ?? 0, tableName: settings.tableName });
  closers.rest.push(() => dynamo.close());
  // Each sender's stand-in (stand-ins/registry.ts), in the registry's order, closed with the stack.
  const standIns = await startStandIns(options.ports, options, (close) => closers.rest.push(close));
  wiring.standIns = standIns;
  // The demo and the CLI find these through GET /__local/info: ports may differ from their defaults.
  const quarantineTable = LOCAL_DEFAULTS.quarantineTable;
  await createLocalQuarantineTable(dynamo.endpoint, quarantineTable);
  wiring.info = {
    emulator: {
      url: emulator.url,
      clientId: settings.login.clientId,
      ...(options.emulatorConfigPath ? { configPath: options.emulatorConfigPath } : {}),
    },
    dynamodb: { url: dynamo.endpoint, tableName: settings.tableName, quarantineTable },
  };
  return { emulator, dynamo, standIns, quarantineTable };
}

/** The operator console's source: the local queue, ledger and quarantine, through a client closed with the stack. */
function startConsoleSource(parts: {
  intakeUrl: string;
  services: StartedServices;
  settings: StackSettings;
  queue: LocalQueue;
  handlers: StackHandlers;
  closers: Closers;
}): ConsoleSource {
  const { services, settings, handlers } = parts;
  const consoleClient = createDocumentClient({ endpoint: services.dynamo.endpoint, ...LOCAL_AWS });
  parts.closers.rest.push(async () => consoleClient.destroy());
  return localConsoleSource({
    intakeUrl: parts.intakeUrl,
    queue: parts.queue,
    ledger: handlers.ledger,
    client: consoleClient,
    tableName: settings.tableName,
    openapi: handlers.openapi,
    quarantine: createQuarantineStore({
      client: consoleClient,
      tableName: services.quarantineTable,
      clock: Date.now,
      ttlDays: DEFAULT_QUARANTINE_TTL_DAYS,
    }),
  });
}
