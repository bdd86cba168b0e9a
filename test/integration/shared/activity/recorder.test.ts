import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ActivityRecorder,
  createActivityReader,
  createActivityRecorder,
  createActivityStore,
  MAX_ORDER_ENTRIES,
  type RunSummary,
  recordedRun,
} from '../../../../shared/activity/index.js';
import { scanLedger } from '../../../../shared/audit/index.js';
import { createLedger } from '../../../../shared/ledger/index.js';
import { type LocalDynamo, startDynalite } from '../../../../kit/dynalite.js';

// The activity record in a real ledger table (dynalite over HTTP), written and read back through the SDK.
describe('the activity record', () => {
  let dynamo: LocalDynamo;
  let recorder: ActivityRecorder;
  let now = Date.parse('2026-11-25T06:00:00Z');
  const clock = () => now;
  const errors: string[] = [];
  beforeAll(async () => {
    dynamo = await startDynalite();
    const store = createActivityStore({ client: dynamo.documentClient, tableName: dynamo.tableName, clock, ttlDays: 400 });
    recorder = createActivityRecorder({ store, clock, onError: (what) => errors.push(what) });
  });
  afterAll(() => dynamo.stop());
  const reader = () => createActivityReader(dynamo.documentClient, dynamo.tableName);

  it("keeps an order's delivery, then the calls a receive made and the receive, in the order they happened", async () => {
    await recorder.delivery({
      receivedAt: now,
      source: 'shopify',
      orderId: '1042',
      deliveryId: 'w-1',
      topic: 'orders/paid',
      status: 202,
      answer: 'accepted',
    });
    now += 1000;
    recorder.noteCall({ operation: 'calculatePoints', marker: 'lp1:shopify:order:1042', result: 'ok', ms: 12 });
    await recorder.received(
      { messageId: 'm-1', receiveCount: 1, source: 'shopify', orderId: '1042', outcome: 'credited', action: 'ack' },
      undefined,
    );
    const activity = await reader().order('shopify', '1042');
    expect(activity.entries.map((e) => e.type)).toEqual(['delivery', 'call', 'receive']);
    expect(activity.entries[0]).toMatchObject({ deliveryId: 'w-1', status: 202, at: '2026-11-25T06:00:00.000Z' });
    expect(activity.entries[1]).toMatchObject({ marker: 'lp1:shopify:order:1042', result: 'ok' });
    expect(activity.entries[2]).toMatchObject({ messageId: 'm-1', outcome: 'credited', action: 'ack' });
  });

  it('records a deferral with its seconds and the refund it belongs to', async () => {
    await recorder.received(
      {
        messageId: 'm-2',
        receiveCount: 2,
        source: 'shopify',
        orderId: '2000',
        refundId: 'r-9',
        outcome: 'refund_waiting',
        action: 'retry',
      },
      45,
    );
    const [entry] = (await reader().order('shopify', '2000')).entries;
    expect(entry).toMatchObject({ type: 'receive', refundId: 'r-9', action: 'retry', deferSeconds: 45, receiveCount: 2 });
  });

  it('stops storing an order past its bound and counts what it left out', async () => {
    for (let i = 0; i < MAX_ORDER_ENTRIES + 3; i += 1) {
      await recorder.delivery({ receivedAt: now, source: 'pos', orderId: 'busy', deliveryId: `d-${i}`, status: 202, answer: 'accepted' });
    }
    const activity = await reader().order('pos', 'busy');
    expect(activity.entries).toHaveLength(MAX_ORDER_ENTRIES);
    expect(activity.omitted).toBe(3);
  });

  it('keeps the newest run summaries and the breaker transitions in order', async () => {
    const run = (i: number): RunSummary => ({
      run: 'audit',
      startedAt: new Date(now + i).toISOString(),
      finishedAt: new Date(now + i).toISOString(),
      ok: true,
      summary: `run ${i}`,
      findings: i,
      details: [],
    });
    for (let i = 0; i < 32; i += 1) await recorder.run(run(i));
    recorder.breaker({ state: 'open', worker: 'w1', reason: 'http_5xx' });
    recorder.breaker({ state: 'closed', worker: 'w1' });
    await recorder.received({ messageId: 'm-x', receiveCount: 1 }); // waits for the breaker's writes
    const runs = await reader().runs();
    expect(runs.map((r) => r.summary).slice(-2)).toEqual(['run 30', 'run 31']);
    expect(runs).toHaveLength(30);
    expect((await reader().breaker()).map((t) => t.state)).toEqual(['open', 'closed']);
  });

  it('files a run that failed with its error, and the caller still gets the error', async () => {
    const failing = recordedRun(
      recorder,
      'reconcile',
      clock,
      () => Promise.reject(new Error('Shopify answered 401')),
      () => ({
        summary: 'never',
        findings: 0,
        details: [],
      }),
    );
    await expect(failing).rejects.toThrow('Shopify answered 401');
    const [last] = (await reader().runs()).slice(-1);
    expect(last).toMatchObject({ run: 'reconcile', ok: false, summary: 'failed: Shopify answered 401' });
  });

  it('is never seen by the ledger scan the audit and the console use', async () => {
    const ledger = createLedger({ client: dynamo.documentClient, tableName: dynamo.tableName, clock });
    await ledger.claimPurchase({ source: 'shopify', orderId: '1042', owner: 'o', eligibleAmount: 1000, currency: 'JPY' });
    const records = await scanLedger(dynamo.documentClient, dynamo.tableName);
    expect(records.orders.map((o) => o.orderId)).toEqual(['1042']);
  });

  it('reports a failed write and goes on, never throwing into the caller', async () => {
    const broken = createActivityRecorder({
      store: createActivityStore({ client: dynamo.documentClient, tableName: 'no-such-table', clock, ttlDays: 1 }),
      clock,
      onError: (what) => errors.push(`broken ${what}`),
    });
    await expect(
      broken.delivery({ receivedAt: now, source: 's', orderId: 'o', deliveryId: 'd', status: 202, answer: 'accepted' }),
    ).resolves.toBeUndefined();
    expect(errors).toEqual(['broken delivery']);
  });
});
