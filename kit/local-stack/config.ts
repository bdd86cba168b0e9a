import {
  ConfigurationError,
  deriveTiming,
  envInteger,
  envList,
  minWebhookSecretChars,
  type ProcessingSettings,
  processingSettingsFromEnv,
  type Timing,
} from '../../shared/config/index.js';
import { DEMO_CONFIG_PATH, type EmulatorConfig, loadConfigFile } from '../../stand-ins/openapi/index.js';
import { localTiming, timingEnvironment } from './timing.js';
import { SMAREGI_LOCAL } from '../../stand-ins/smaregi/local.js';
import { SHOPIFY_ADMIN_LOCAL } from '../../stand-ins/shopify-admin/local.js';
import { LOCAL_STAND_INS, STAND_IN_KEYS, type StandInKey } from '../../stand-ins/registry.js';
import { SQUARE_ORDERS_LOCAL } from '../../stand-ins/square-orders/local.js';

/** The derived defaults (shared/config/timing.ts): the same as a stage's with its default worker timeout. */
const DEFAULT_TIMING = deriveTiming();

/**
 * Everything `npm start`, `npm run demo` and the local CLI read from the environment, with the
 * printed demo defaults, in one place so the three always agree on ports, secrets and credentials.
 */
export const LOCAL_ENV = {
  PORT: 'PORT',
  EMULATOR_PORT: 'EMULATOR_PORT',
  DYNAMODB_PORT: 'DYNAMODB_PORT',
  /** The local stand-in of Shopify's GraphQL Admin API (what `npm run reconcile` reads). */
  SHOPIFY_ADMIN_PORT: 'SHOPIFY_ADMIN_PORT',
  /** The local stand-in of Square's Orders API (what the worker reads for `subtotal_excluding_tax`). */
  SQUARE_ORDERS_PORT: 'SQUARE_ORDERS_PORT',
  /** The local stand-in of Smaregi's Platform API (what the worker reads for every Smaregi webhook). */
  SMAREGI_PORT: 'SMAREGI_PORT',
  /** The Smaregi contract the local `smaregi` source takes deliveries for. */
  SMAREGI_CONTRACT_ID: 'SMAREGI_CONTRACT_ID',
  /** The value of the Smaregi source's custom webhook header (at least 32 characters). */
  SMAREGI_WEBHOOK_SECRET: 'SMAREGI_WEBHOOK_SECRET',
  /** The custom header's name (default x-smaregi-webhook-token). */
  SMAREGI_WEBHOOK_HEADER: 'SMAREGI_WEBHOOK_HEADER',
  /** The Smaregi stores whose sales earn, comma-separated (unset: every store); the source's `storeIds`. */
  SMAREGI_STORE_IDS: 'SMAREGI_STORE_IDS',
  /** How Smaregi members are found: external_id (default) or unique_id; the source's `memberLookup`. */
  SMAREGI_MEMBER_LOOKUP: 'SMAREGI_MEMBER_LOOKUP',
  /** The till's points: ignore (default: Smaregi's own) or membership (spent points come off the balance); the source's `tillPoints`. */
  SMAREGI_TILL_POINTS: 'SMAREGI_TILL_POINTS',
  /** Plain returns without their sale: manual (default: left open for `npm run returns`) or auto; the source's `returns`. */
  SMAREGI_RETURNS: 'SMAREGI_RETURNS',
  /** How far back (days, 1-365, default 30) `auto` looks for the sale; the source's `returnWindowDays`. */
  SMAREGI_RETURN_WINDOW_DAYS: 'SMAREGI_RETURN_WINDOW_DAYS',
  /** The Smaregi stand-in answers 429 past this many API reads per second (Smaregi's own limit; unset: off). */
  SMAREGI_THROTTLE_PER_SECOND: 'SMAREGI_THROTTLE_PER_SECOND',
  EMULATOR_CONFIG: 'EMULATOR_CONFIG',
  SHOPIFY_WEBHOOK_SECRET: 'SHOPIFY_WEBHOOK_SECRET',
  POS_WEBHOOK_SECRETS: 'POS_WEBHOOK_SECRETS',
  /** Square signature key(s), comma-separated (current first). */
  SQUARE_WEBHOOK_SIGNATURE_KEY: 'SQUARE_WEBHOOK_SIGNATURE_KEY',
  /** The URL Square signs with the body; default `http://127.0.0.1:<PORT>/webhooks/square`. */
  SQUARE_NOTIFICATION_URL: 'SQUARE_NOTIFICATION_URL',
  LEDGER_TABLE: 'LEDGER_TABLE',
  QUEUE_VISIBILITY_TIMEOUT_SECONDS: 'QUEUE_VISIBILITY_TIMEOUT_SECONDS',
  QUEUE_MAX_RECEIVE_COUNT: 'QUEUE_MAX_RECEIVE_COUNT',
  /** `compact` (default): one line per handler log; `powertools`: their JSON lines as in Lambda; `off`. */
  LOCAL_LOGS: 'LOCAL_LOGS',
} as const;

export const LOCAL_DEFAULTS = {
  port: 3000,
  emulatorPort: 8787,
  dynamodbPort: 8000,
  shopifyAdminPort: LOCAL_STAND_INS.shopifyAdmin.port.default,
  /** The stand-in's Admin API access token (a demo value, like the demo webhook secrets). */
  shopifyAdminToken: SHOPIFY_ADMIN_LOCAL.accessToken,
  squareOrdersPort: LOCAL_STAND_INS.squareOrders.port.default,
  /** The Square Orders stand-in's access token (a demo value). */
  squareOrdersToken: SQUARE_ORDERS_LOCAL.accessToken,
  shopifySecret: 'demo-shopify-secret',
  /** At least 32 characters, as every POS secret must be (shared/config/secret-strength.ts). */
  posSecret: 'demo-pos-secret-for-local-use-only',
  squareSignatureKey: 'demo-square-signature-key',
  ledgerTable: 'points-ledger',
  /** Authentic deliveries intake could not read (`npm run quarantine`). */
  quarantineTable: 'webhook-quarantine',
  /** Derived as in AWS: waiting events are deferred with a short backoff, so you still see them retried. */
  visibilityTimeoutSeconds: DEFAULT_TIMING.visibilityTimeoutSeconds,
  maxReceiveCount: DEFAULT_TIMING.maxReceiveCount,
} as const;

export interface OpenApiLogin {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

/**
 * The ports `npm start` listens on, each set by its own variable (0: any free port); each sender's
 * stand-in's under its key, set by the variable its plug-in names (stand-ins/registry.ts).
 */
export type LocalPorts = { intake: number; emulator: number; dynamodb: number } & Record<StandInKey, number>;

/** Which variable sets each port: a taken port is reported by its variable. */
const PORT_VARIABLES: Record<keyof LocalPorts, string> = {
  intake: LOCAL_ENV.PORT,
  emulator: LOCAL_ENV.EMULATOR_PORT,
  dynamodb: LOCAL_ENV.DYNAMODB_PORT,
  ...(Object.fromEntries(STAND_IN_KEYS.map((key) => [key, LOCAL_STAND_INS[key].port.variable])) as Record<StandInKey, string>),
};

/**
 * What to tell the user when a port is taken (EADDRINUSE carries the port): the port and the variable
 * that moves it; when the port is none of ours (a part chose it), every variable.
 */
export function takenPortMessage(error: { port?: unknown; message: string }, ports: LocalPorts): string {
  const entry = Object.entries(ports).find(([, port]) => port !== 0 && port === error.port) as [keyof LocalPorts, number] | undefined;
  if (entry) {
    const variable = PORT_VARIABLES[entry[0]];
    return `port ${entry[1]} (${variable}) is already in use: stop what holds it, or start with ${variable}=<a free port>`;
  }
  return `${error.message}; choose other ports with ${Object.values(PORT_VARIABLES).join(', ')}`;
}

export interface LocalConfig {
  ports: LocalPorts;
  /** The file the emulator configuration came from (the demo configuration when EMULATOR_CONFIG is unset). */
  emulatorConfigPath: string;
  emulatorConfig: EmulatorConfig;
  /** The Open API login the worker uses: the first client's first secret. */
  clientId: string;
  clientSecret: string;
  webhookSecrets: { shopify: string[]; pos: string[]; square: string[] };
  /** Which secrets are the printed demo defaults (not set in the environment). */
  defaulted: { shopify: boolean; pos: boolean; square: boolean };
  /** SQUARE_NOTIFICATION_URL; undefined: the intake's own `/webhooks/square`. */
  squareNotificationUrl?: string;
  /** The local Smaregi source: contract, custom header and its value. */
  smaregi: {
    contractId: string;
    webhookHeader: string;
    webhookSecret: string;
    storeIds?: string[];
    memberLookup?: 'external_id' | 'unique_id';
    tillPoints?: 'ignore' | 'membership';
    returns?: 'manual' | 'auto';
    returnWindowDays?: number;
    throttlePerSecond?: number;
  };
  tableName: string;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /** Every timing setting, derived and checked as the stack does (shared/config/timing.ts). */
  timing: Timing;
  /** The worker's processing settings, read from the same environment as the stack's worker reads them. */
  processing: ProcessingSettings;
  logs: 'compact' | 'powertools' | 'off';
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  return envInteger(
    env,
    name,
    { fallback, min, max },
    (raw) => new ConfigurationError('invalid_local_config', `${name} must be an integer from ${min} to ${max}, got "${raw.slice(0, 20)}"`),
  );
}

function secrets(env: NodeJS.ProcessEnv, name: string, fallback: string, minChars: number): { list: string[]; defaulted: boolean } {
  const list = envList(env, name);
  // The same rule the receiver applies: refused here, before anything starts.
  if (list.some((s) => s.length < minChars))
    throw new ConfigurationError('invalid_local_config', `${name}: each secret must be at least ${minChars} characters`);
  return list.length > 0 ? { list, defaulted: false } : { list: [fallback], defaulted: true };
}

/** The first client and its first secret: what the worker logs in with (stand-ins/openapi/README.md, "Configuration"). */
export function firstClientLogin(config: EmulatorConfig): { clientId: string; clientSecret: string } {
  const client = config.clients[0];
  const secret = client?.client_secrets[0];
  if (client === undefined || secret === undefined) {
    throw new ConfigurationError(
      'invalid_local_config',
      'the emulator configuration has no client: the worker needs its first client and secret',
    );
  }
  return { clientId: client.client_id, clientSecret: secret };
}

/** Reads and checks the local configuration; a bad value is a ConfigurationError (invalid_local_config) naming the variable. */
export async function resolveLocalConfig(env: NodeJS.ProcessEnv): Promise<LocalConfig> {
  const ports = {
    intake: integer(env, LOCAL_ENV.PORT, LOCAL_DEFAULTS.port, 0, 65_535),
    emulator: integer(env, LOCAL_ENV.EMULATOR_PORT, LOCAL_DEFAULTS.emulatorPort, 0, 65_535),
    dynamodb: integer(env, LOCAL_ENV.DYNAMODB_PORT, LOCAL_DEFAULTS.dynamodbPort, 0, 65_535),
    ...(Object.fromEntries(
      STAND_IN_KEYS.map((key) => {
        const { variable, default: fallback } = LOCAL_STAND_INS[key].port;
        return [key, integer(env, variable, fallback, 0, 65_535)];
      }),
    ) as Record<StandInKey, number>),
  };
  const emulatorConfigPath = env[LOCAL_ENV.EMULATOR_CONFIG]?.trim() || DEMO_CONFIG_PATH;
  let emulatorConfig: EmulatorConfig;
  try {
    emulatorConfig = await loadConfigFile(emulatorConfigPath);
  } catch (e) {
    throw new ConfigurationError(
      'invalid_local_config',
      `${LOCAL_ENV.EMULATOR_CONFIG} (${emulatorConfigPath}): ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const shopify = secrets(env, LOCAL_ENV.SHOPIFY_WEBHOOK_SECRET, LOCAL_DEFAULTS.shopifySecret, minWebhookSecretChars('shopify'));
  const pos = secrets(env, LOCAL_ENV.POS_WEBHOOK_SECRETS, LOCAL_DEFAULTS.posSecret, minWebhookSecretChars('pos'));
  const square = secrets(env, LOCAL_ENV.SQUARE_WEBHOOK_SIGNATURE_KEY, LOCAL_DEFAULTS.squareSignatureKey, minWebhookSecretChars('square'));
  const squareNotificationUrl = env[LOCAL_ENV.SQUARE_NOTIFICATION_URL]?.trim() || undefined;
  if (squareNotificationUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(squareNotificationUrl)) {
    throw new ConfigurationError('invalid_local_config', `${LOCAL_ENV.SQUARE_NOTIFICATION_URL} must be an http(s) URL`);
  }
  const smaregi = localSmaregiSettings(env);
  const tableName = env[LOCAL_ENV.LEDGER_TABLE]?.trim() || LOCAL_DEFAULTS.ledgerTable;
  if (!/^[A-Za-z0-9_.-]{3,255}$/.test(tableName)) {
    throw new ConfigurationError('invalid_local_config', `${LOCAL_ENV.LEDGER_TABLE} must be 3-255 letters, digits, _ . or -`);
  }
  const logs = env[LOCAL_ENV.LOCAL_LOGS]?.trim() || 'compact';
  if (logs !== 'compact' && logs !== 'powertools' && logs !== 'off') {
    throw new ConfigurationError('invalid_local_config', `${LOCAL_ENV.LOCAL_LOGS} must be compact, powertools or off`);
  }
  const timing: Timing = localTiming(env);
  return {
    logs,
    ports,
    emulatorConfigPath,
    emulatorConfig,
    ...firstClientLogin(emulatorConfig),
    webhookSecrets: { shopify: shopify.list, pos: pos.list, square: square.list },
    defaulted: { shopify: shopify.defaulted, pos: pos.defaulted, square: square.defaulted },
    ...(squareNotificationUrl ? { squareNotificationUrl } : {}),
    smaregi,
    tableName,
    visibilityTimeoutSeconds: timing.visibilityTimeoutSeconds,
    maxReceiveCount: timing.maxReceiveCount,
    timing,
    processing: processingSettingsFromEnv({ ...env, ...timingEnvironment(timing) }),
  };
}

/** SMAREGI_CONTRACT_ID, SMAREGI_WEBHOOK_HEADER and SMAREGI_WEBHOOK_SECRET, checked as the source checks them. */
function localSmaregiSettings(env: NodeJS.ProcessEnv): LocalConfig['smaregi'] {
  const contractId = env[LOCAL_ENV.SMAREGI_CONTRACT_ID]?.trim() || SMAREGI_LOCAL.contractId;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(contractId))
    throw new ConfigurationError('invalid_local_config', `${LOCAL_ENV.SMAREGI_CONTRACT_ID} must be 1-64 letters, digits, _ or -`);
  const webhookHeader = env[LOCAL_ENV.SMAREGI_WEBHOOK_HEADER]?.trim() || SMAREGI_LOCAL.webhookHeader;
  if (!/^[A-Za-z0-9-]{1,64}$/.test(webhookHeader))
    throw new ConfigurationError(
      'invalid_local_config',
      `${LOCAL_ENV.SMAREGI_WEBHOOK_HEADER} must be a header name: 1-64 letters, digits or -`,
    );
  const secret = secrets(env, LOCAL_ENV.SMAREGI_WEBHOOK_SECRET, SMAREGI_LOCAL.webhookSecret, minWebhookSecretChars('smaregi'));
  const stores = env[LOCAL_ENV.SMAREGI_STORE_IDS]?.trim();
  const storeIds = stores ? stores.split(',').map((s) => s.trim()) : undefined;
  if (storeIds?.some((s) => !/^[0-9]{1,20}$/.test(s)))
    throw new ConfigurationError(
      'invalid_local_config',
      `${LOCAL_ENV.SMAREGI_STORE_IDS} must be Smaregi store ids (digits), comma-separated`,
    );
  const lookup = env[LOCAL_ENV.SMAREGI_MEMBER_LOOKUP]?.trim() || undefined;
  if (lookup !== undefined && lookup !== 'external_id' && lookup !== 'unique_id')
    throw new ConfigurationError('invalid_local_config', `${LOCAL_ENV.SMAREGI_MEMBER_LOOKUP} must be external_id or unique_id`);
  const tillPoints = env[LOCAL_ENV.SMAREGI_TILL_POINTS]?.trim() || undefined;
  if (tillPoints !== undefined && tillPoints !== 'ignore' && tillPoints !== 'membership')
    throw new ConfigurationError('invalid_local_config', `${LOCAL_ENV.SMAREGI_TILL_POINTS} must be ignore or membership`);
  const returns = env[LOCAL_ENV.SMAREGI_RETURNS]?.trim() || undefined;
  if (returns !== undefined && returns !== 'manual' && returns !== 'auto')
    throw new ConfigurationError('invalid_local_config', `${LOCAL_ENV.SMAREGI_RETURNS} must be manual or auto`);
  const returnWindowDays = env[LOCAL_ENV.SMAREGI_RETURN_WINDOW_DAYS]?.trim()
    ? integer(env, LOCAL_ENV.SMAREGI_RETURN_WINDOW_DAYS, 30, 1, 365)
    : undefined;
  const throttle = env[LOCAL_ENV.SMAREGI_THROTTLE_PER_SECOND]?.trim()
    ? integer(env, LOCAL_ENV.SMAREGI_THROTTLE_PER_SECOND, 0, 1, 1000)
    : undefined;
  return {
    contractId,
    webhookHeader,
    webhookSecret: secret.list[0] as string,
    ...(storeIds ? { storeIds } : {}),
    ...(lookup ? { memberLookup: lookup } : {}),
    ...(tillPoints ? { tillPoints } : {}),
    ...(returns ? { returns } : {}),
    ...(returnWindowDays ? { returnWindowDays } : {}),
    ...(throttle ? { throttlePerSecond: throttle } : {}),
  };
}
