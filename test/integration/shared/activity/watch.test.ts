import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ActivityRecorder,
  createActivityReader,
  createActivityRecorder,
  createActivityStore,
  watchBreaker,
  watchCalls,
} from '../../../../shared/activity/index.js';
import { createOpenApiClient, type OpenApiClient, staticCredentials } from '../../../../shared/openapi/index.js';
import { instrumentPointsApi } from '../../../../shared/points/index.js';
import { createCircuitBreaker } from '../../../../shared/retry/index.js';
import { type LocalDynamo, startDynalite } from '../../../../kit/dynalite.js';
import { startTestEmulator, type TestEmulator, testClient } from '../../../support/emulator.js';

// The worker's observed parts against real ones: the Open API client talking HTTP to the emulator, the
// project's circuit breaker, the record in dynalite.
describe('what the worker observes for the activity record', () => {
  let emulator: TestEmulator;
  let dynamo: LocalDynamo;
  let recorder: ActivityRecorder;
  let api: OpenApiClient;
  beforeAll(async () => {
    const members = [{ login_id: 'hanako', password: 'pass1234', external_ids: { shopify: '1001' } }];
    emulator = await startTestEmulator({ now: '2026-01-15 10:00:00', clients: [testClient({ members })] });
    dynamo = await startDynalite();
    const store = createActivityStore({ client: dynamo.documentClient, tableName: dynamo.tableName, clock: Date.now, ttlDays: 400 });
    recorder = createActivityRecorder({ store, clock: Date.now });
    api = createOpenApiClient({
      credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'test-client', clientSecret: 'test-secret' }),
      ratePerMinute: 1_000_000,
      timeouts: { connectMs: 2_000, headersMs: 2_000, bodyMs: 2_000 },
    });
  });
  afterAll(async () => {
    await dynamo.stop();
    await emulator.close();
  });
  const read = () => createActivityReader(dynamo.documentClient, dynamo.tableName);

  it('passes the send window of a grant on to the client, which then sends nothing once it has closed', async () => {
    const store = createActivityStore({ client: dynamo.documentClient, tableName: dynamo.tableName, clock: Date.now, ttlDays: 400 });
    const watched = instrumentPointsApi(watchCalls(api, createActivityRecorder({ store, clock: Date.now })), () => undefined);
    const member = await watched.getMemberByExternalId('shopify', '1001');
    const before = member.point;
    const closed = { leftMs: () => 0 };
    await expect(watched.grantPoints(member.id, { point: 7, remarks: 'lp1:shopify:order:1043' }, closed)).rejects.toMatchObject({
      kind: 'lease_window_closed',
      executed: 'no',
    });
    await expect(watched.calculatePoints(member.id, { amount: 1000, remarks: 'lp1:shopify:order:1043' }, closed)).rejects.toMatchObject({
      kind: 'lease_window_closed',
    });
    expect((await api.getMember(member.id)).point).toBe(before);
  });

  it('files each grant with its marker and answer, a lost answer as not known to have run, under the receive that made them', async () => {
    const watched = watchCalls(api, recorder);
    const member = await watched.getMemberByExternalId('shopify', '1001');
    await watched.calculatePoints(member.id, { amount: 12_000, title: 'Purchase #1042', remarks: 'lp1:shopify:order:1042' });
    await emulator.addFault({ method: 'POST', path: '/points/calculation$', fault: 'reset_after_commit', times: 1 });
    await expect(watched.calculatePoints(member.id, { amount: 12_000, remarks: 'lp1:shopify:order:1042' })).rejects.toThrow();
    await recorder.received({
      messageId: 'm-1',
      receiveCount: 1,
      source: 'shopify',
      orderId: '1042',
      outcome: 'upstream_error',
      action: 'retry',
    });
    const entries = (await read().order('shopify', '1042')).entries;
    expect(entries.map((e) => e.type)).toEqual(['call', 'call', 'receive']);
    expect(entries[0]).toMatchObject({ operation: 'calculatePoints', marker: 'lp1:shopify:order:1042', result: 'ok' });
    expect(entries[1]).toMatchObject({ operation: 'calculatePoints', marker: 'lp1:shopify:order:1042', executed: 'unknown' });
    expect(entries[1]).not.toMatchObject({ result: 'ok' });
  });

  it("reports the breaker opening on the service's failures and closing on its next answer, with the failure that opened it", async () => {
    const breaker = watchBreaker(createCircuitBreaker({ openMs: 60_000, failureThreshold: 3 }), recorder, 'worker-a');
    const member = await api.getMemberByExternalId('shopify', '1001');
    await emulator.addFault({ method: 'POST', path: '/points/calculation$', fault: 'error_500', times: 3 });
    for (let i = 0; i < 3; i += 1) {
      try {
        await api.calculatePoints(member.id, { amount: 100 });
      } catch (e) {
        breaker.record({ ok: false, errorKind: (e as { kind: string }).kind });
      }
    }
    await api.calculatePoints(member.id, { amount: 100 });
    breaker.record({ ok: true });
    await recorder.received({ messageId: 'flush', receiveCount: 1 }); // waits for the transitions' writes
    const transitions = await read().breaker();
    expect(transitions.map((t) => [t.state, t.worker])).toEqual([
      ['open', 'worker-a'],
      ['closed', 'worker-a'],
    ]);
    expect(transitions[0]?.reason).toBeTruthy();
  });
});
