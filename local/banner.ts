import type { EmulatorConfig } from '../stand-ins/openapi/index.js';
import { LOCAL_DEFAULTS, LOCAL_ENV } from '../kit/local-stack/config.js';
import { curlFor, posCurlScript, shopifyOrderWebhook } from '../kit/webhooks/index.js';
import { SENDER_KINDS } from '../shared/sources/ops.entry.js';

export interface BannerInput {
  urls: { intake: string; emulator: string; dynamodb: string };
  emulatorConfigPath: string;
  emulatorConfig: EmulatorConfig;
  clientId: string;
  clientSecret: string;
  /** true when the client secret comes from the bundled demo configuration (then it may be shown). */
  demoEmulatorConfig: boolean;
  webhookSecrets: { shopify: string[]; pos: string[]; square?: string[] };
  defaulted: { shopify: boolean; pos: boolean; square?: boolean };
  /** The URL the Square source verifies signatures with. */
  squareNotificationUrl?: string;
  /**
   * The senders' stand-ins' lines (stand-ins/registry.ts `standInBanner`): `services` after the stack's
   * parts, `secrets` after the webhook secrets (Smaregi's stand-in and its source's contract and header).
   */
  standIns?: { readonly services: readonly string[]; readonly secrets: readonly string[] };
  tableName: string;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /** When the banner is printed (epoch ms; default now): the examples are dated then. */
  now?: number;
}

/** A member of the first client with an external id under `key`, for the example requests. */
function exampleMember(config: EmulatorConfig, key: string): { name: string; externalId: string } | undefined {
  for (const m of config.clients[0]?.members ?? []) {
    const ids = (m as { external_ids?: Record<string, unknown> }).external_ids;
    const id = ids?.[key];
    if (typeof id === 'string') {
      const name = (m as { login_id?: unknown }).login_id;
      return { name: typeof name === 'string' ? name : id, externalId: id };
    }
  }
  return undefined;
}

/**
 * The Shopify example, as a Japanese shop sends it: a paid order of ¥13,200 with prices including
 * ¥1,200 consumption tax (earning on ¥12,000), for the first customer with a `shopify` id. Dated when
 * printed: a fixed date would fall out of the replay window and the pasted command would be `too_old`.
 */
export function exampleShopifyCurl(intakeUrl: string, customerId: string, secret: string, nowMs: number = Date.now()): string {
  const request = shopifyOrderWebhook(
    'orders/paid',
    'paid',
    { orderId: '5100000000000000001', name: '#1001', customerId, subtotal: '13200', tax: '1200', currency: 'JPY', taxesIncluded: true },
    secret,
    'curl-example-1',
    nowMs,
  );
  return curlFor(intakeUrl, request);
}

/** The time in Japan as ISO 8601 with its +09:00 offset (what a Japanese till writes). */
function japanTime(ms: number): string {
  return `${new Date(ms + 9 * 3_600_000).toISOString().slice(0, 19)}+09:00`;
}

/** The POS example: a sale of ¥5,400 for a member card, dated when printed, signed when pasted. */
export function examplePosScript(
  intakeUrl: string,
  cardNumber: string,
  secret: { literal: string } | { envVar: string },
  nowMs: number = Date.now(),
): string {
  const body = JSON.stringify({
    type: 'sale',
    receiptId: 'R-EXAMPLE-1',
    storeId: 'store-001',
    registerId: 'till-1',
    issuedAt: japanTime(nowMs),
    currency: 'JPY',
    customer: { cardNumber },
    subtotal: '5400',
    taxIncluded: false,
    tax: '540',
    total: '5940',
  });
  return posCurlScript(intakeUrl, body, secret);
}

/** The Square signature key and the notification URL it signs with (SQUARE_NOTIFICATION_URL). */
function squareLines(b: BannerInput, shown: (name: string, values: string[], defaulted: boolean) => string): string[] {
  if (!b.webhookSecrets.square || !b.squareNotificationUrl) return [];
  return [
    `                           ${shown(LOCAL_ENV.SQUARE_WEBHOOK_SIGNATURE_KEY, b.webhookSecrets.square, b.defaulted.square ?? false)}`,
    `                           ${LOCAL_ENV.SQUARE_NOTIFICATION_URL}=${b.squareNotificationUrl} (Square signs it with the body)`,
  ];
}

/**
 * `PORT=<port> ` when the intake listens off the default port: the demo and the CLI find the stack
 * through PORT alone, so without it they would look on 3000.
 */
function portPrefix(intakeUrl: string): string {
  const port = Number(new URL(intakeUrl).port);
  return port === LOCAL_DEFAULTS.port ? '' : `${LOCAL_ENV.PORT}=${port} `;
}

/**
 * What `npm start` prints once up: where everything listens, the secrets (demo defaults shown;
 * secrets you set are referred to by variable, never printed), and requests ready to paste.
 */
export function bannerLines(b: BannerInput): string[] {
  const shown = (name: string, values: string[], defaulted: boolean) =>
    defaulted ? `${name}=${values[0]} (demo default)` : `${name}: ${values.length} secret(s) from the environment (not shown)`;
  const lines = [
    'loyalty-points-bridge: local stack up',
    '',
    `  intake (API Gateway v2)  ${b.urls.intake}   ${SENDER_KINDS.map((kind) => `POST /webhooks/${kind}  `).join('')}GET /healthz`,
    `  Open API emulator        ${b.urls.emulator}   client ${b.clientId}, secret ${b.demoEmulatorConfig ? b.clientSecret : '(first secret of the configuration file)'}`,
    `                           configuration ${b.emulatorConfigPath}`,
    `  DynamoDB (dynalite)      ${b.urls.dynamodb}   table ${b.tableName}`,
    `  queue                    in-process FIFO: visibility ${b.visibilityTimeoutSeconds} s, dead letter after ${b.maxReceiveCount} receives`,
    `                           GET /__local/queue  GET /__local/dlq  POST /__local/redrive  GET /__local/info`,
    `  operator console         ${b.urls.intake}/__local/console/   (open it in a browser: orders, quarantine, dead letters)`,
    ...(b.standIns?.services ?? []),
    `  webhook secrets          ${shown(LOCAL_ENV.SHOPIFY_WEBHOOK_SECRET, b.webhookSecrets.shopify, b.defaulted.shopify)}`,
    `                           ${shown(LOCAL_ENV.POS_WEBHOOK_SECRETS, b.webhookSecrets.pos, b.defaulted.pos)}`,
    ...squareLines(b, shown),
    ...(b.standIns?.secrets ?? []),
  ];
  const shopper = exampleMember(b.emulatorConfig, 'shopify');
  if (shopper) {
    lines.push(
      '',
      `Shopify orders/paid for ${shopper.name} (shopify customer ${shopper.externalId}); paste it twice to see the duplicate dropped:`,
      '',
      exampleShopifyCurl(b.urls.intake, shopper.externalId, b.webhookSecrets.shopify[0] ?? '', b.now),
    );
  }
  const walkIn = exampleMember(b.emulatorConfig, 'pos_card');
  if (walkIn) {
    const secret = b.defaulted.pos ? { literal: b.webhookSecrets.pos[0] ?? '' } : { envVar: LOCAL_ENV.POS_WEBHOOK_SECRETS };
    lines.push(
      '',
      `POS sale for ${walkIn.name} (card ${walkIn.externalId}), signed when pasted (needs openssl):`,
      '',
      examplePosScript(b.urls.intake, walkIn.externalId, secret, b.now),
    );
  }
  const run = `${portPrefix(b.urls.intake)}npm run`;
  lines.push(
    '',
    `Then: ${run} demo (the full scenario) | ${run} ledger -- shopify 5100000000000000001 | ${run} redrive`,
    'Ctrl-C stops everything.',
  );
  return lines;
}
