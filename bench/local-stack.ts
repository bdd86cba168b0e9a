/**
 * `npx tsx bench/local-stack.ts [--events N]`: what the local stack adds and what it sustains.
 *  1. the in-process FIFO queue alone, with a worker that does nothing: messages per second and the
 *     delay from send to delivery;
 *  2. the whole local stack: N signed purchases posted 8 at a time, until the queue is idle:
 *     intake latency (HTTP round trip) and events per second end to end.
 * Prints a table and, last, the same figures as one JSON line. Never pass/fail.
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { shopifyOrderWebhook } from '../kit/webhooks/index.js';
import { createLocalQueue, startLocalStack } from '../local/index.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values } = parseArgs({ options: { events: { type: 'string', default: '300' }, messages: { type: 'string', default: '20000' } } });
const events = Number(values.events);
const messages = Number(values.messages);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function queueAlone() {
  const delays: number[] = [];
  const queue = createLocalQueue({ concurrency: 4 });
  queue.start(async (event) => {
    const now = performance.timeOrigin + performance.now();
    for (const r of event.Records) delays.push(now - Number(r.attributes.SentTimestamp));
  });
  const started = performance.now();
  for (let i = 0; i < messages; i++) {
    await queue.send({ body: `{"n":${i}}`, groupId: `g${i % 100}`, deduplicationId: `d${i}` });
  }
  await queue.waitForIdle();
  const seconds = (performance.now() - started) / 1000;
  await queue.close();
  delays.sort((a, b) => a - b);
  return {
    messages,
    perSecond: Math.round(messages / seconds),
    deliveryDelayMsP50: percentile(delays, 50),
    deliveryDelayMsP99: percentile(delays, 99),
  };
}

async function wholeStack() {
  const stack = await startLocalStack();
  try {
    const customers = ['1001', '1002', '1003', '1004', '1005'];
    const latencies: number[] = [];
    const started = performance.now();
    let next = 0;
    const secret = stack.webhookSecrets.shopify[0];
    if (secret === undefined) throw new Error('bench: the local stack has no Shopify webhook secret');
    const sender = async () => {
      while (next < events) {
        const i = next++;
        const request = shopifyOrderWebhook(
          'orders/paid',
          'paid',
          {
            orderId: String(6_000_000_000_000_000_000n + BigInt(i)),
            name: `#B${i}`,
            customerId: customers[i % customers.length] ?? null,
            subtotal: '1000',
            tax: '100',
            currency: 'JPY',
          },
          secret,
          `bench-${i}`,
          Date.now(),
        );
        const t0 = performance.now();
        const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
        await res.text();
        latencies.push(performance.now() - t0);
        if (res.status !== 202) throw new Error(`intake answered ${res.status}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));
    const accepted = performance.now();
    await stack.queue.waitForIdle({ timeoutMs: 300_000 });
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      events,
      intakeMsP50: Number(percentile(latencies, 50).toFixed(1)),
      intakeMsP99: Number(percentile(latencies, 99).toFixed(1)),
      acceptedPerSecond: Math.round(events / ((accepted - started) / 1000)),
      processedPerSecond: Math.round(events / seconds),
      deadLettered: stack.queue.stats().deadLettered,
    };
  } finally {
    await stack.close();
  }
}

const q = await queueAlone();
const s = await wholeStack();
const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`;
const rows: [string, string][] = [
  ['machine', machine],
  ['queue alone: messages', String(q.messages)],
  ['queue alone: messages/s (no-op worker, 100 groups)', String(q.perSecond)],
  ['queue alone: send -> delivery p50 / p99 (ms)', `${q.deliveryDelayMsP50} / ${q.deliveryDelayMsP99}`],
  ['stack: purchases (5 customers, 8 senders)', String(s.events)],
  ['stack: intake round trip p50 / p99 (ms)', `${s.intakeMsP50} / ${s.intakeMsP99}`],
  ['stack: accepted/s', String(s.acceptedPerSecond)],
  ['stack: processed/s end to end (emulator + dynalite)', String(s.processedPerSecond)],
  ['stack: dead-lettered', String(s.deadLettered)],
];
const width = Math.max(...rows.map(([k]) => k.length));
for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
console.log(JSON.stringify({ machine, queue: q, stack: s }));
