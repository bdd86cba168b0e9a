/**
 * What processing one event costs against the emulator and dynalite: latency per purchase and per
 * refund, and the Open API calls and DynamoDB writes each makes (the budget this project holds to: a purchase is
 * 2 calls and at most 2 writes). Prints figures; never passes or fails on time.
 *
 *   npx tsx bench/processing.ts [--purchases 300]
 */
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import { startEmulator } from '../stand-ins/openapi/index.js';
import { ProcessingSettings } from '../shared/config/index.js';
import { createLedger, createLedgerTable } from '../shared/ledger/index.js';
import { createOpenApiClient, staticCredentials } from '../shared/openapi/index.js';
import { createProcessor } from '../shared/points/index.js';
import type { PurchaseEvent, RefundEvent } from '../shared/events/index.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { values } = parseArgs({ options: { purchases: { type: 'string', default: '300' } } });
const purchases = Number(values.purchases);

const emulator = await startEmulator({
  config: {
    now: '2026-01-15 10:00:00',
    clients: [
      {
        client_id: 'bench',
        client_secrets: ['bench-secret'],
        members: [{ id: 'member-1', rank: 'gold', external_ids: { shopify: 'c1' } }],
      },
    ],
  },
});
const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
const raw = new DynamoDBClient({
  endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
let writes = 0;
raw.middlewareStack.add(
  (next, context) => async (args) => {
    if (/^(Put|Update|Delete)(Item)?Command$/.test(String(context.commandName))) writes++;
    return next(args);
  },
  { step: 'initialize', name: 'countWrites' },
);
await createLedgerTable(raw, 'bench-ledger');
const api = createOpenApiClient({
  credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'bench', clientSecret: 'bench-secret' }),
});
const processor = createProcessor({
  ledger: createLedger({
    client: DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } }),
    tableName: 'bench-ledger',
    clock: Date.now,
  }),
  openapi: api,
  settings: ProcessingSettings.parse({}),
  clock: Date.now,
});
const stats = async () => {
  const body = (await (await fetch(`${emulator.url}/__emulator/stats`)).json()) as {
    clients: Record<string, { routes: Record<string, { total: number }> }>;
  };
  return Object.values(body.clients.bench?.routes ?? {}).reduce((s, r) => s + r.total, 0);
};

const purchase = (i: number): PurchaseEvent => ({
  type: 'purchase',
  eventId: `bench:${i}`,
  source: 'bench',
  orderId: `o${i}`,
  customer: { externalKey: 'shopify', externalId: 'c1' },
  currency: 'JPY',
  occurredAt: '2026-01-15T10:00:00+09:00',
  pointTitle: 'Purchase',
  test: false,
  delivery: { id: `d${i}`, topic: 'orders/paid' },
  eligibleAmount: 1000,
  expiryDays: null,
});
const refund = (i: number, refundId: string): RefundEvent => ({
  ...purchase(i),
  type: 'refund',
  refundId,
  refundAmount: 500,
  refundsRemainder: false,
});

async function measure(label: string, n: number, run: (i: number) => Promise<unknown>) {
  const callsBefore = await stats();
  const writesBefore = writes;
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await run(i);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const calls = (await stats()) - callsBefore;
  console.log(
    `${label.padEnd(22)} n=${n}  p50=${ms[Math.floor(n / 2)]?.toFixed(2)} ms  p95=${ms[Math.floor(n * 0.95)]?.toFixed(2)} ms` +
      `  calls/event=${(calls / n).toFixed(2)}  writes/event=${((writes - writesBefore) / n).toFixed(2)}`,
  );
}

await processor.process(purchase(-1)); // warm: token, pools
await measure('purchase', purchases, (i) => processor.process(purchase(i)));
await measure('duplicate purchase', purchases, (i) => processor.process(purchase(i)));
await measure('first refund (+history)', Math.min(purchases, 100), (i) => processor.process(refund(i, 'a')));
await measure('second refund', Math.min(purchases, 100), (i) => processor.process(refund(i, 'b')));

await api.close();
await emulator.close();
raw.destroy();
server.close();
