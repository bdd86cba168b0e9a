import type { EmulatorConfig, startEmulator } from '../stand-ins/openapi/index.js';
import type { ProcessEventsDeps } from '../functions/process-events.js';
import type { ReceiveWebhookDeps } from '../functions/receive-webhook.js';
import type { Timing } from '../shared/config/index.js';
import type { Ledger } from '../shared/ledger/index.js';
import type { DueEarns } from '../shared/points/index.js';
import type { RedemptionDeps } from '../shared/redemption/index.js';
import type { startLocalDynamoDb } from './dynamodb/index.js';
import type { LocalQueue, LocalQueueOptions } from './queue/index.js';
import type { RecoveryTicker } from './recovery/ticker.js';
import type { StandInKey, StandInOptions, StandInPorts, StartedStandIns } from '../stand-ins/registry.js';

/** The local stack's options and parts (local/stack.ts starts it; local/stack-handlers.ts builds its handlers). */

/**
 * The stand-ins' options sit under their keys (stand-ins/registry.ts): `smaregi` (LocalSmaregiOptions: the
 * Smaregi source's contract, webhook header and secret; default: the demo values, stand-ins/smaregi).
 */
export interface LocalStackOptions extends StandInOptions {
  /** 0 (the default for each) picks a free port; a stand-in's under its key (`shopifyAdmin`, `squareOrders`, `smaregi`). */
  ports?: { intake?: number; emulator?: number; dynamodb?: number } & StandInPorts;
  /** An emulator configuration (stand-ins/openapi/README.md, "Configuration"); default: the demo configuration. */
  emulatorConfig?: unknown;
  /** Webhook signing secrets per source (current first); default: the demo secrets. */
  webhookSecrets?: { shopify?: string[]; pos?: string[]; square?: string[] };
  /** The URL Square signs with the body; default: this intake's `/webhooks/square`. */
  squareNotificationUrl?: string;
  tableName?: string;
  /** Workers (containers) to run; default WORKER_CONCURRENCY, else derived from the budget (kit/local-stack/workers.ts). */
  workers?: number;
  /** More environment for the handlers: processing settings, SOURCES_CONFIG, Powertools. */
  env?: NodeJS.ProcessEnv;
  /** The file the emulator configuration came from: served on /__local/info so operator commands read the same login. */
  emulatorConfigPath?: string;
  /**
   * Queue behaviour (clock, concurrency). Visibility timeout and receive count come from the timing
   * derivation of `env` (kit/local-stack/timing.ts); overriding them here is for tests of the queue itself.
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
  /** Where each part listens; each stand-in under its key. */
  urls: { intake: string; emulator: string; dynamodb: string } & Record<StandInKey, string>;
  /**
   * The senders' stand-ins, by key (stand-ins/registry.ts): `shopifyAdmin` (the GraphQL Admin API, holding
   * every Shopify order and refund the intake accepted), `squareOrders` (orders seeded with POST
   * /__square/orders), `smaregi` (the Platform API, POST /__smaregi/customers and /__smaregi/transactions,
   * and the source's settings).
   */
  standIns: StartedStandIns;
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
  /** One tick of the provisional points ticker (it also runs every minute by itself), e.g. after a chaos run's drain. */
  earnDue: () => Promise<DueEarns>;
  /** Redemptions (the App Proxy's deps: ledger, Admin API, settings); absent when the Shopify source does not redeem. */
  redemption?: RedemptionDeps;
  /** The environment the handlers were built from (secrets included: do not print it). */
  handlerEnv: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** The settings read before anything starts: a bad configuration or timing refuses to start. */
export interface StackSettings {
  config: EmulatorConfig;
  login: { clientId: string; clientSecret: string };
  timing: Timing;
  tableName: string;
  webhookSecrets: { shopify: string[]; pos: string[]; square: string[] };
  /** Workers, each a container of its own (kit/local-stack/workers.ts). */
  workers: number;
}

/** The emulator, dynalite and the stand-ins, listening. */
export interface StartedServices {
  emulator: Awaited<ReturnType<typeof startEmulator>>;
  dynamo: Awaited<ReturnType<typeof startLocalDynamoDb>>;
  standIns: StartedStandIns;
  quarantineTable: string;
}
