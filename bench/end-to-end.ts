/**
 * End to end through the local stack (local/stack.ts, the code `npm start` runs: the receiver behind
 * the local API Gateway, the in-process FIFO queue, the worker, dynalite, the emulator): signed Shopify
 * orders/paid webhooks posted over HTTP, each timed from the start of its POST until the worker has
 * credited the points upstream and recorded it (its `event processed` log line with outcome credited:
 * the points call has returned, so the points are visible in the membership service).
 *
 * - steady: 10 events/s for `steadySeconds`;
 * - burst: `burst` events posted at once (8 connections), and the time until the backlog is drained.
 *
 * The stack has its production defaults (rate budget 2000 requests/minute per endpoint, the queue's
 * concurrency) and 500 members, so events spread over many FIFO groups as real customers do.
 * Ports: 0 (free ports) unless BENCH_PORT is set (intake BENCH_PORT, emulator +1, dynalite +2).
 *
 *   npx tsx bench/end-to-end.ts [--quick]
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { shopifyOrderWebhook } from '../kit/webhooks/index.js';
import { startLocalStack } from '../local/index.js';

export interface LatencyFigures {
  events: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface EndToEndFigures {
  /** The steady run's figures (the headline p50/p99). */
  p50Ms: number;
  p99Ms: number;
  steady: LatencyFigures & { eventsPerSecond: number };
  burst: LatencyFigures & {
    /** First POST to the last event credited. */
    drainSeconds: number;
    /** Events credited per second while the backlog drained. */
    drainEventsPerSecond: number;
  };
  upstreamBudgetPerMinute: number;
  members: number;
  /** Outcomes other than credited, and dead letters (none expected). */
  notCredited: number;
  deadLettered: number;
}

const MEMBERS = 500;
const CLIENT = { id: 'bench-e2e', secret: 'bench-e2e-secret' };

function emulatorConfig(): unknown {
  return {
    now: '2026-01-15 10:00:00',
    clients: [
      {
        client_id: CLIENT.id,
        client_secrets: [CLIENT.secret],
        ranks: { regular: 0.01, gold: 0.05 },
        external_keys: ['shopify', 'pos_card'],
        members: Array.from({ length: MEMBERS }, (_, i) => ({
          login_id: `e2e-${i}`,
          password: 'bench-pass',
          rank: i % 4 === 0 ? 'gold' : 'regular',
          external_ids: { shopify: String(7000 + i) },
        })),
      },
    ],
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

function figures(latencies: number[]): LatencyFigures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    events: sorted.length,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted[sorted.length - 1] ?? 0),
  };
}

export async function runEndToEndBench(options: { quick?: boolean; log?: (line: string) => void } = {}): Promise<EndToEndFigures> {
  const quick = options.quick ?? false;
  const log = options.log ?? (() => undefined);
  const steadySeconds = quick ? 10 : 30;
  const burst = 500;
  const base = Number(process.env.BENCH_PORT ?? 0);
  const ports = base > 0 ? { intake: base, emulator: base + 1, dynamodb: base + 2 } : { intake: 0, emulator: 0, dynamodb: 0 };

  /** When each event was credited (worker log line), by event id. */
  const credited = new Map<string, number>();
  const waiting = new Map<string, () => void>();
  let notCredited = 0;
  const sink = (message: string, extra: Record<string, unknown> = {}) => {
    if (message !== 'event processed' || typeof extra.eventId !== 'string') return;
    if (extra.outcome !== 'credited') {
      notCredited += 1;
      return;
    }
    credited.set(extra.eventId, performance.now());
    waiting.get(extra.eventId)?.();
  };
  const stack = await startLocalStack({
    ports,
    emulatorConfig: emulatorConfig(),
    processOverrides: { logger: { info: sink, warn: sink, error: sink } },
  });
  const secret = stack.webhookSecrets.shopify[0] as string;
  let seq = 0;
  const send = async (): Promise<{ eventId: string; sentAt: number }> => {
    const i = seq++;
    const orderId = String(5_000_000_000_000n + BigInt(i));
    const request = shopifyOrderWebhook(
      'orders/paid',
      'paid',
      { orderId, name: `#E${i}`, customerId: String(7000 + (i % MEMBERS)), subtotal: '1000', tax: '100', currency: 'JPY' },
      secret,
      `e2e-${i}`,
      Date.now(),
    );
    const sentAt = performance.now();
    const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
    const text = await res.text();
    if (res.status !== 202) throw new Error(`intake answered ${res.status}: ${text.slice(0, 200)}`);
    return { eventId: `shopify:order:${orderId}`, sentAt };
  };
  const doneAt = (eventId: string, timeoutMs = 120_000) =>
    new Promise<number>((resolve, reject) => {
      const at = credited.get(eventId);
      if (at !== undefined) return resolve(at);
      const timer = setTimeout(() => reject(new Error(`${eventId} not credited within ${timeoutMs} ms`)), timeoutMs);
      waiting.set(eventId, () => {
        clearTimeout(timer);
        waiting.delete(eventId);
        resolve(credited.get(eventId) as number);
      });
    });

  try {
    // Warm-up: token, pools, dynalite's table.
    for (let i = 0; i < 10; i += 1) {
      const { eventId } = await send();
      await doneAt(eventId);
    }

    // --- steady: one webhook every 100 ms ------------------------------------------------------
    const steadyEvents = steadySeconds * 10;
    const steadyLatencies: Promise<number>[] = [];
    const steadyStart = performance.now();
    for (let i = 0; i < steadyEvents; i += 1) {
      const due = steadyStart + i * 100;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      steadyLatencies.push(send().then(async ({ eventId, sentAt }) => (await doneAt(eventId)) - sentAt));
    }
    const steadyList = await Promise.all(steadyLatencies);
    const steadySecondsTaken = (performance.now() - steadyStart) / 1000;
    log(`end to end: steady ${steadyEvents} events`);

    // --- burst: 500 at once, 8 connections ------------------------------------------------------
    const burstStart = performance.now();
    const sent: Array<{ eventId: string; sentAt: number }> = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < burst) {
          next += 1;
          sent.push(await send());
        }
      }),
    );
    const burstDone = await Promise.all(sent.map(async ({ eventId, sentAt }) => ({ at: await doneAt(eventId), sentAt })));
    const lastAt = Math.max(...burstDone.map((d) => d.at));
    const drainSeconds = (lastAt - burstStart) / 1000;
    log(`end to end: burst of ${burst} drained in ${round(drainSeconds)} s`);

    const steady = figures(steadyList);
    return {
      p50Ms: steady.p50Ms,
      p99Ms: steady.p99Ms,
      steady: { ...steady, eventsPerSecond: round(steadyEvents / steadySecondsTaken) },
      burst: {
        ...figures(burstDone.map((d) => d.at - d.sentAt)),
        drainSeconds: round(drainSeconds, 2),
        drainEventsPerSecond: round(burst / drainSeconds),
      },
      upstreamBudgetPerMinute: Number(stack.handlerEnv.UPSTREAM_BUDGET_PER_MINUTE ?? 2000),
      members: MEMBERS,
      notCredited,
      deadLettered: stack.queue.stats().deadLettered,
    };
  } finally {
    await stack.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  console.log(JSON.stringify(await runEndToEndBench({ quick: values.quick, log: (line) => console.error(line) })));
}
