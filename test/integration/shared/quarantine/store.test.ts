import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQuarantineStore, createQuarantineTable } from '../../../../shared/quarantine/index.js';
import { type LocalDynamo, manualClock, startDynalite } from '../../../../kit/dynalite.js';
import { fixture } from '../../../../kit/fixture-webhooks.js';

/** The quarantine store on dynalite: reading what the table holds, whatever it holds. */
let dynamo: LocalDynamo;
let table = 0;
beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => dynamo?.stop());

const MiB = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function setup() {
  const tableName = `quarantine-store-${++table}`;
  await createQuarantineTable(dynamo.client, tableName);
  const store = createQuarantineStore({
    client: dynamo.documentClient,
    tableName,
    clock: manualClock(Date.parse('2026-11-24T00:00:00Z')),
    ttlDays: 90,
    maxBodyBytes: MiB,
  });
  /** An item written as a damaged or hostile table would hold it. */
  const put = (id: string, body: { gzipped: Uint8Array; bodyBytes: number; bodySha256: string }) =>
    dynamo.documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          pk: `quarantine#${id}`,
          id,
          source: 'shopify',
          state: 'quarantined',
          reason: { kind: 'malformed_json', message: 'not JSON' },
          headers: { 'x-shopify-topic': 'orders/paid' },
          body: body.gzipped,
          bodyEncoding: 'gzip',
          bodyBytes: body.bodyBytes,
          bodySha256: body.bodySha256,
          firstReceivedAt: '2026-11-24T00:00:00.000Z',
          lastReceivedAt: '2026-11-24T00:00:00.000Z',
          deliveries: 1,
        },
      }),
    );
  return { store, put };
}

describe('quarantine store', () => {
  it('refuses to inflate a stored body past the intake limit', async () => {
    const { store, put } = await setup();
    const bomb = Buffer.alloc(8 * MiB);
    await put('q-bomb', { gzipped: gzipSync(bomb), bodyBytes: 100, bodySha256: sha256(bomb) });
    const entry = await store.get('q-bomb');
    expect(entry?.body).toBeUndefined();
    expect(entry?.bodyProblem).toBe(`stored body does not inflate within ${MiB} bytes`);
  });

  it('does not hand out a stored body whose sha256 is not the one recorded', async () => {
    const { store, put } = await setup();
    const body = Buffer.from('{"id": 1}');
    await put('q-hash', { gzipped: gzipSync(body), bodyBytes: body.length, bodySha256: sha256(Buffer.from('{"id": 2}')) });
    expect(await store.get('q-hash')).toMatchObject({ bodyProblem: 'stored body does not match its recorded sha256' });
    expect((await store.get('q-hash'))?.body).toBeUndefined();
  });

  it('does not hand out a stored body whose size is not the one recorded', async () => {
    const { store, put } = await setup();
    const body = Buffer.from('{"id": 1}');
    await put('q-size', { gzipped: gzipSync(body), bodyBytes: body.length + 1, bodySha256: sha256(body) });
    expect(await store.get('q-size')).toMatchObject({
      bodyProblem: `stored body is ${body.length} bytes, not the ${body.length + 1} recorded`,
    });
  });

  it('lists entries without their bodies', async () => {
    const { store, put } = await setup();
    const bomb = Buffer.alloc(8 * MiB);
    await put('q-listed', { gzipped: gzipSync(bomb), bodyBytes: bomb.length, bodySha256: sha256(bomb) });
    const [entry] = await store.list();
    expect(entry).toMatchObject({ id: 'q-listed', bodyBytes: bomb.length });
    expect(entry).not.toHaveProperty('body');
  });

  it('lists the topic and the refund and order each entry names', async () => {
    const { store } = await setup();
    const body = Buffer.from(fixture('shopify/refunds-create-partial.json').replace(/"id": \d+/, '"id": "R-1"'));
    const refund = Buffer.from(fixture('shopify/refunds-create-partial.json'));
    await store.keep({
      source: 'shopify',
      headers: { 'x-shopify-topic': 'refunds/create' },
      rawBody: refund,
      reason: { kind: 'invalid_payload', message: 'x' },
    });
    await store.keep({
      source: 'shopify',
      headers: { 'x-shopify-topic': 'orders/paid' },
      rawBody: body,
      reason: { kind: 'x', message: 'x' },
    });
    const listed = await store.list();
    expect(listed.map((e) => [e.topic, e.resource])).toEqual(
      expect.arrayContaining([
        ['refunds/create', 'refund 929361462 of order 820982911946154508'],
        ['orders/paid', undefined],
      ]),
    );
  });
});
