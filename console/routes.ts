import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replayEntry } from '../ops/quarantine.js';
import { NO_FRAMING_HEADERS } from '../shared/http/index.js';
import { parseJsonOrUndefined } from '../shared/text/index.js';
import { ConsoleStartingError } from './errors.js';
import { activityTimeline, operations } from './activity.js';
import { bonusTimeline, ledgerTimeline, listOrders, markedHistory, shareTimeline, type TimelineEntry } from './orders.js';
import { type ConsoleMessage, message } from './messages.js';
import { SUPERSEDED_SHARE, shareOrderId } from '../shared/points/index.js';
import { listRedemptions } from './redemptions.js';
import { listTillReturns } from './returns.js';
import { listTillShortfalls } from './shortfalls.js';
import { buildTimeModule } from './time-module.js';
import { listReversals } from './reversals.js';
import type { ConsoleSource } from './source.js';
import type { PullingStatus } from '../shared/consumer/index.js';

/** An answer the console's routes give (the local server's HttpAnswer shape). */
export interface ConsoleAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}
export type ConsoleRoute = (request: { body: Buffer; query: URLSearchParams }) => Promise<ConsoleAnswer>;

/**
 * Whether the worker pulls; `unknown` (with why) when it cannot be read (a stage whose mapping or its
 * SSM parameter the operator may not read): the rest of the status still shows.
 */
async function pullingOrUnknown(source: ConsoleSource): Promise<PullingStatus | { state: 'unknown'; reason: string }> {
  try {
    return await source.pulling();
  } catch (e) {
    return { state: 'unknown', reason: e instanceof Error ? `${e.name}: ${e.message}` : 'unreadable' };
  }
}

export const CONSOLE_PATH = '/__local/console/';

const STATIC_DIR = join(dirname(fileURLToPath(import.meta.url)), 'static');
const STATIC_FILES = {
  '': ['index.html', 'text/html; charset=utf-8'],
  'console.js': ['console.js', 'text/javascript; charset=utf-8'],
  'console.css': ['console.css', 'text/css; charset=utf-8'],
  // One message table per language (the page words everything from them: docs/console.md).
  'messages.ja.json': ['messages.ja.json', 'application/json; charset=utf-8'],
  'messages.en.json': ['messages.en.json', 'application/json; charset=utf-8'],
} as const;
/** The page's time module, built from shared/time at start (time-module.ts). */
export const TIME_MODULE_FILE = 'jst.js';

const json = (status: number, value: unknown): ConsoleAnswer => ({
  status,
  // The console's answers are about now: never from a cache.
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  body: Buffer.from(JSON.stringify(value), 'utf8'),
});

const failed = (e: unknown) => json(502, { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });

/** Wraps a read so that a store that fails answers 502 with the reason, not a dropped connection. */
const guarded =
  (route: ConsoleRoute): ConsoleRoute =>
  async (request) => {
    try {
      return await route(request);
    } catch (e) {
      if (e instanceof ConsoleStartingError) return json(503, { status: 'starting' });
      return failed(e);
    }
  };

async function timeline(source: ConsoleSource, query: URLSearchParams): Promise<ConsoleAnswer> {
  const ref = { source: query.get('source') ?? '', orderId: query.get('orderId') ?? '' };
  if (ref.source === '' || ref.orderId === '') return json(400, { error: 'timeline takes ?source=&orderId=' });
  const order = await source.ledger.records.getOrder(ref);
  if (order === undefined) return json(404, { error: `no ledger record for ${ref.source} order ${ref.orderId}` });
  const refunds = await source.ledger.records.listRefunds(ref);
  const entries: TimelineEntry[] = ledgerTimeline(order, refunds);
  for (const campaign of order.campaigns ?? []) {
    const bonus = await source.ledger.records.getBonus({ ...ref, campaignId: campaign.id });
    if (bonus) entries.push(...bonusTimeline(bonus));
  }
  for (const amount of order.shippedShares) {
    const shareRef = { source: ref.source, orderId: shareOrderId(ref.orderId, Number(amount)) };
    const share = await source.ledger.records.getOrder(shareRef);
    const back = share ? (await source.ledger.records.listRefunds(shareRef)).find((r) => r.refundId === SUPERSEDED_SHARE) : undefined;
    if (share) entries.push(...shareTimeline(amount, share, back));
  }
  let historyNote: ConsoleMessage | null = null;
  try {
    entries.push(...(await activityTimeline(source, ref)));
  } catch (e) {
    historyNote = message('note.activityUnreadable', { error: e instanceof Error ? e.message : String(e) });
  }
  const customerId = order.customerId ?? refunds.find((r) => r.customerId)?.customerId;
  if (customerId === undefined) historyNote = message('note.noCustomer');
  else {
    try {
      entries.push(...(await markedHistory(source.openapi, { ...ref, customerId })));
    } catch (e) {
      historyNote = message('note.historyUnreadable', { error: e instanceof Error ? e.message : String(e) });
    }
  }
  // Each clock on its own: the ledger's and the activity's times are ISO UTC; the membership service writes
  // `Y-m-d H:i:s` in a zone its spec does not name, so its entries follow ours instead of being interleaved.
  const rank = (e: TimelineEntry) => (e.from === 'history' ? 1 : 0);
  entries.sort((a, b) => rank(a) - rank(b) || a.at.localeCompare(b.at));
  return json(200, { entries, historyNote });
}

async function quarantineList(source: ConsoleSource): Promise<ConsoleAnswer> {
  const entries = await source.quarantine.store.list();
  return json(200, {
    entries: entries.map((e) => ({
      id: e.id,
      source: e.source,
      state: e.state,
      reason: `${e.reason.kind}: ${e.reason.message}`,
      webhookId: e.headers['x-shopify-webhook-id'] ?? null,
      topic: e.headers['x-shopify-topic'] ?? null,
      firstReceivedAt: e.firstReceivedAt,
      lastReceivedAt: e.lastReceivedAt,
      deliveries: e.deliveries,
      replayResult: e.replayResult ?? null,
    })),
  });
}

async function replay(source: ConsoleSource, body: Buffer): Promise<ConsoleAnswer> {
  // Not JSON is the caller's mistake: a 400 saying what is taken, not the parser's text as a 502.
  const parsed = parseJsonOrUndefined(body.toString('utf8') || '{}') as { id?: unknown } | undefined;
  const id = parsed?.id;
  if (typeof id !== 'string') return json(400, { error: 'replay takes {"id": "<quarantine id>"}' });
  const entry = await source.quarantine.store.get(id);
  if (entry === undefined) return json(404, { error: `no quarantined delivery ${id}` });
  // The same function as `npm run quarantine -- replay <id>`.
  const outcome = await replayEntry(source.quarantine, entry);
  return json(outcome.ok ? 200 : 409, outcome);
}

/**
 * The console's routes by `METHOD /path`: its static files, shared/time built for the page, and a small JSON API the page
 * polls. Actions are POSTs with a JSON body (the loopback guard admits only the page's own origin).
 */
export function consoleRoutes(source: ConsoleSource): Record<string, ConsoleRoute> {
  const routes: Record<string, ConsoleRoute> = {};
  for (const [path, [file, type]] of Object.entries(STATIC_FILES)) {
    const body = readFileSync(join(STATIC_DIR, file));
    routes[`GET ${CONSOLE_PATH}${path}`] = async () => ({
      status: 200,
      headers: { 'content-type': type, 'cache-control': 'no-store' },
      body,
    });
  }
  // shared/time for the page (console.js imports it): the one way a time is written for a person.
  const timeModule = buildTimeModule();
  routes[`GET ${CONSOLE_PATH}${TIME_MODULE_FILE}`] = async () => ({
    status: 200,
    headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' },
    body: timeModule,
  });
  const api = `${CONSOLE_PATH}api/`;
  Object.assign(routes, {
    [`GET ${api}status`]: guarded(async () =>
      json(200, {
        label: source.label,
        backlog: await source.backlog(),
        pulling: await pullingOrUnknown(source),
        now: new Date().toISOString(), // ISO UTC like every time in the API: the page shows it in Japan time
      }),
    ),
    [`GET ${api}orders`]: guarded(async ({ query }) => {
      const filter = Object.fromEntries(
        ['source', 'outcome', 'customer', 'from', 'to'].map((k) => [k, query.get(k) ?? '']).filter(([, v]) => v !== ''),
      );
      const bad = ['from', 'to'].find((k) => filter[k] !== undefined && Number.isNaN(Date.parse(filter[k] as string)));
      if (bad) return json(400, { error: `${bad} takes a date (2026-12-01, a Japan day) or an ISO time, not ${filter[bad]}` });
      return json(200, { orders: await listOrders(source, filter) });
    }),
    [`GET ${api}redemptions`]: guarded(async ({ query }) => {
      const customer = query.get('customer') || undefined;
      return json(200, { redemptions: await listRedemptions(source, customer) });
    }),
    [`GET ${api}returns`]: guarded(async ({ query }) => {
      const status = query.get('status') || undefined;
      return json(200, { returns: await listTillReturns(source, status) });
    }),
    [`GET ${api}shortfalls`]: guarded(async () => json(200, { shortfalls: await listTillShortfalls(source) })),
    [`GET ${api}reversals`]: guarded(async ({ query }) => {
      const customer = query.get('customer') || undefined;
      return json(200, { reversals: await listReversals(source, customer) });
    }),
    [`GET ${api}timeline`]: guarded(({ query }) => timeline(source, query)),
    [`GET ${api}operations`]: guarded(async () => json(200, await operations(source))),
    [`GET ${api}quarantine`]: guarded(() => quarantineList(source)),
    [`GET ${api}dlq`]: guarded(async () => json(200, { messages: await source.deadLetters() })),
    [`POST ${api}replay`]: guarded(({ body }) => replay(source, body)),
    [`POST ${api}redrive`]: guarded(async () => json(200, { moved: await source.redrive() })),
  } satisfies Record<string, ConsoleRoute>);
  // Whichever server carries them (npm start's, the stage console's): never framed, never sniffed.
  return Object.fromEntries(
    Object.entries(routes).map(([key, route]) => [
      key,
      async (request: Parameters<ConsoleRoute>[0]) => {
        const a = await route(request);
        return { ...a, headers: { ...a.headers, ...NO_FRAMING_HEADERS } };
      },
    ]),
  );
}
