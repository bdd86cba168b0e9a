import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCustomerRecords, type CustomerRecords, enrolCustomer } from '../../../../shared/customers/index.js';
import { clearTokenCache, createOpenApiClient, type OpenApiClient, staticCredentials } from '../../../../shared/openapi/index.js';
import { type LocalDynamo, startDynalite } from '../../../../kit/dynalite.js';
import { startTestEmulator, type TestEmulator, testClient } from '../../../support/emulator.js';

const LINKED = '8f6d2c1e-0001-4000-8000-000000000001';
const config = {
  now: '2026-01-15 10:00:00',
  clients: [testClient({ members: [{ id: LINKED, login_id: 'alice', password: 'pass1234', external_ids: { shopify: '1001' } }] })],
};
const REGISTER = { method: 'POST', path: '^/api/ext/users$' };
const REGISTER_ROUTE = 'POST /api/ext/users';
const LOOKUP_ROUTE = 'GET /api/ext/users/external_id/{external_key}/{external_id}';

let emulator: TestEmulator;
let dynamo: LocalDynamo;
let openapi: OpenApiClient;
let now = Date.parse('2026-01-15T01:00:00Z');
let records: CustomerRecords;

beforeAll(async () => {
  [emulator, dynamo] = await Promise.all([startTestEmulator(config), startDynalite()]);
  openapi = createOpenApiClient({
    credentials: staticCredentials({ baseUrl: emulator.url, clientId: 'test-client', clientSecret: 'test-secret' }),
    retryBaseMs: 5,
  });
});
afterAll(async () => {
  await openapi.close();
  await Promise.all([emulator.close(), dynamo.stop()]);
});
beforeEach(async () => {
  clearTokenCache();
  await emulator.reset();
  // A table per test: every test starts with no customer records.
  const tableName = `customers-${Math.random().toString(36).slice(2)}`;
  const { createLedgerTable } = await import('../../../../shared/ledger/index.js');
  await createLedgerTable(dynamo.client, tableName);
  records = createCustomerRecords({ client: dynamo.documentClient, tableName, clock: () => now, leaseSeconds: 60, ttlDays: 400 });
});

const enrol = (customerId = '5001') => enrolCustomer({ records, openapi }, { source: 'shopify', externalKey: 'shopify', customerId });

async function membersWith(customerId: string): Promise<string[]> {
  const list = await openapi.listMembers({ perPage: 1000 });
  const ids: string[] = [];
  for (const m of list.members) {
    const detail = await openapi.getMember(m.id);
    if (detail.external_ids?.shopify === customerId) ids.push(detail.id);
  }
  return ids;
}

async function registerCalls(): Promise<number> {
  return (await emulator.stats('test-client'))?.routes[REGISTER_ROUTE]?.total ?? 0;
}

describe('enrolling a shop customer as a member', () => {
  it('registers one member carrying the shop customer id and records it as enrolled', async () => {
    const result = await enrol();
    expect(result).toMatchObject({ action: 'ack', kind: 'enrolled' });
    expect(await membersWith('5001')).toHaveLength(1);
    expect(await records.get({ source: 'shopify', customerId: '5001' })).toMatchObject({ state: 'done', outcome: 'enrolled' });
  });

  it('registers once for three deliveries, two of them at the same time', async () => {
    const [a, b] = await Promise.all([enrol(), enrol()]);
    const third = await enrol();
    expect([a.kind, b.kind].sort()).toEqual(['enrolled', 'lease_held']);
    expect(third).toMatchObject({ action: 'ack', kind: 'duplicate', previous: 'enrolled' });
    expect(await membersWith('5001')).toHaveLength(1);
    expect(await registerCalls()).toBe(1);
  });

  it('leaves a customer who is already a member alone, without registering', async () => {
    const result = await enrol('1001');
    expect(result).toMatchObject({ action: 'ack', kind: 'already_member', memberId: LINKED });
    expect(await registerCalls()).toBe(0);
  });

  it('does not register again when the answer of a registration that went through was lost', async () => {
    await emulator.addFault({ ...REGISTER, fault: 'reset_after_commit', times: 1 });
    const lost = await enrol();
    expect(lost).toMatchObject({ action: 'retry', kind: 'outcome_unknown' });
    // The lease is kept until it runs out: nobody looks while the lost call could still land.
    expect(await enrol()).toMatchObject({ action: 'retry', kind: 'lease_held' });
    now += 61_000;
    expect(await enrol()).toMatchObject({ action: 'ack', kind: 'enrolled' });
    expect(await membersWith('5001')).toHaveLength(1);
    expect(await registerCalls()).toBe(1);
  });

  it('registers nobody once a slow lookup has used up the lease window, frees the customer, and the retry enrols once', async () => {
    // The lookup took the lease's whole send window (its 60 s less the 15 s margin).
    const slowLookup = {
      getMemberByExternalId: async (key: string, id: string) => {
        try {
          return await openapi.getMemberByExternalId(key, id);
        } finally {
          now += 45_000;
        }
      },
      registerMember: openapi.registerMember.bind(openapi),
    };
    const first = await enrolCustomer({ records, openapi: slowLookup }, { source: 'shopify', externalKey: 'shopify', customerId: '5001' });
    expect(first).toMatchObject({ action: 'retry', kind: 'upstream_error' });
    expect(await registerCalls()).toBe(0);
    expect((await records.get({ source: 'shopify', customerId: '5001' }))?.leaseOwner).toBeUndefined();
    expect(await enrol()).toMatchObject({ action: 'ack', kind: 'enrolled' });
    expect(await membersWith('5001')).toHaveLength(1);
  });

  it('registers after a failure that proves nothing was registered', async () => {
    await emulator.addFault({ ...REGISTER, fault: 'error_500', times: 1 });
    const first = await enrol();
    expect(first.action).toBe('retry');
    now += 61_000;
    expect(await enrol()).toMatchObject({ action: 'ack', kind: 'enrolled' });
    expect(await membersWith('5001')).toHaveLength(1);
  });

  it('counts "already taken" as done when another system registered the id meanwhile', async () => {
    // Our look-up runs before their registration and its answer is held back until after it.
    await emulator.addFault({ method: 'GET', path: '^/api/ext/users/external_id/', fault: 'delay', delay_ms: 1000, times: 1 });
    const ours = enrol('6001');
    while (((await emulator.stats('test-client'))?.routes[LOOKUP_ROUTE]?.total ?? 0) === 0) await new Promise((r) => setTimeout(r, 10));
    const theirs = await openapi.registerMember({ external_ids: { shopify: '6001' } });
    expect(await ours).toMatchObject({ action: 'ack', kind: 'already_member', memberId: theirs.id });
    expect(await membersWith('6001')).toEqual([theirs.id]);
    expect(await registerCalls()).toBe(2);
  });
});
