/**
 * Intake latency as a sender sees it: a signed webhook over HTTP to the local API Gateway stand-in
 * (local/http), through the real receive-webhook handler, until its 2xx answer. The queue behind it
 * only records the message (the worker is not what a sender waits for). Sequential requests on one
 * keep-alive connection: the chaos scenario's purchases (Shopify orders, POS sales, Smaregi sales
 * against the local Smaregi stand-in, as `npm start` wires it), after a warm-up.
 *
 *   npx tsx bench/intake-latency.ts [--requests 2000]
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { depsFromEnv, makeHandler } from '../functions/receive-webhook.js';
import { startLocalHttpServer } from '../local/http/index.js';
import { localSmaregiEnvironment, startLocalSmaregi } from '../stand-ins/smaregi/index.js';
import type { EventQueue } from '../shared/queue/index.js';
import { createSmaregiSender } from '../chaos/smaregi.js';
import { renderDelivery } from '../chaos/webhooks.js';
import { generateScenario } from '../chaos/scenario.js';

export interface IntakeLatencyFigures {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  accepted: number;
  /** The requests by sender (path), warm-up excluded. */
  bySender: Record<string, number>;
  /** Messages handed to the queue, the 100 warm-up requests included. */
  queued: number;
}

const SECRETS = { shopify: 'bench-shopify-secret', pos: 'bench-pos-secret-0123456789abcdef', square: 'bench-square-key' };
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

export async function runIntakeLatencyBench(options: { requests?: number } = {}): Promise<IntakeLatencyFigures> {
  const requests = options.requests ?? 2000;
  let queued = 0;
  const queue: EventQueue = {
    send: async () => {
      queued += 1;
    },
  };
  // Smaregi's webhooks name a transaction only: its sales need the stand-in (as under `npm start`).
  const smaregi = await startLocalSmaregi({ port: 0 });
  const env = {
    SHOPIFY_WEBHOOK_SECRET: SECRETS.shopify,
    POS_WEBHOOK_SECRETS: SECRETS.pos,
    ...localSmaregiEnvironment(smaregi, { SOURCES_CONFIG: '{}' }, 'SOURCES_CONFIG'),
  };
  const sender = createSmaregiSender({
    url: smaregi.standIn.url,
    contractId: smaregi.contractId,
    header: smaregi.webhookHeader,
    secret: smaregi.webhookSecret,
  });
  const handler = makeHandler(
    depsFromEnv(
      env,
      // Its delivery metrics would print one EMF line per request in the middle of the bench's output.
      { queue, logger: quiet, recordDelivery: () => undefined },
    ),
  );
  const server = await startLocalHttpServer({
    port: 0,
    apiRoutes: { 'POST /webhooks/shopify': handler, 'POST /webhooks/pos': handler, 'POST /webhooks/smaregi': handler },
    isReady: () => true,
  });
  const pool = new Pool(server.url, { connections: 1 });
  // Real sender payloads: the chaos scenario's purchases (Shopify orders/paid and POS sales).
  const scenario = generateScenario({ events: 400, seed: 7 });
  // The Smaregi stand-in refuses a till spend beyond the customer's point, as Smaregi does: seed them as the chaos run does.
  await sender.seedCustomers(scenario.customers);
  const steps = scenario.deliveries.filter((d) => {
    const e = scenario.events[d.event];
    return e?.kind === 'purchase' && !e.test && d.kind === 'first' && e.source !== 'square';
  });
  const times: number[] = [];
  let accepted = 0;
  const bySender: Record<string, number> = {};
  try {
    for (let i = 0; i < requests + 100; i += 1) {
      const step = steps[i % steps.length];
      if (!step) break;
      const webhook = renderDelivery(scenario, { ...step, deliveryId: `lat-${i}` }, { ...SECRETS, smaregi: sender }, Date.now());
      await webhook.prepare?.(); // the sender's side, not timed
      const t0 = performance.now();
      const response = await pool.request({ method: 'POST', path: webhook.path, headers: webhook.headers, body: webhook.body });
      await response.body.text();
      const ms = performance.now() - t0;
      if (i < 100) continue; // warm-up
      times.push(ms);
      if (response.statusCode >= 200 && response.statusCode < 300) accepted += 1;
      bySender[webhook.path] = (bySender[webhook.path] ?? 0) + 1;
    }
  } finally {
    await pool.close();
    await server.close();
    await smaregi.standIn.close();
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => Math.round((times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0) * 100) / 100;
  return { requests: times.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1), accepted, bySender, queued };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' } } });
  console.log(JSON.stringify(await runIntakeLatencyBench({ requests: Number(values.requests) })));
}
