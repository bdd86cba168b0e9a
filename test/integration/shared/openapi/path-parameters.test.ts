import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenApiClient, staticCredentials, type OpenApiClient } from '../../../../shared/openapi/index.js';
import { ALICE, BOB, countingCredentials, rejectionOf, useHarness, type Harness } from './emulator-harness.js';

let h: Harness;
let client: OpenApiClient;
let credentials: ReturnType<typeof countingCredentials>;

useHarness((started) => {
  h = started;
  credentials = countingCredentials(staticCredentials(h.credentials()));
  client = createOpenApiClient({ credentials });
});
afterAll(async () => client.close());
beforeEach(() => {
  credentials.calls = 0;
});

const attempts: Array<[string, () => Promise<unknown>]> = [
  ['a parent path in a customer id', () => client.getMember('../users')],
  ['a slash in a customer id', () => client.grantPoints(`${BOB}/points`, { point: 1 })],
  ['an encoded slash in a customer id', () => client.calculatePoints(`x%2F..%2F${BOB}`, { amount: 1 })],
  ['a space in a customer id', () => client.updateMember(`${BOB} `, {})],
  ['a newline in a customer id', () => client.logout(`${BOB}\r\nX-Injected: 1`)],
  ['an empty customer id', () => client.resign('')],
  ['a slash in a unique id', () => client.getMemberByUniqueId('M0001/../M0002')],
  ['a slash in an external key', () => client.getMemberByExternalId('shopify/..', '1001')],
  ['a dot segment as external id', () => client.getMemberByExternalId('shopify', '..')],
  ['a slash in an external id', () => client.getMemberByExternalId('shopify', '1001/../../1002')],
  ['an external id over 255 characters', () => client.getMemberByExternalId('shopify', '1'.repeat(256))],
  ['a parent path as external key to delete', () => client.deleteExternalId(ALICE, '../resign')],
  ['a parent path as handover token', () => client.checkHandoverToken('../../users', ALICE)],
  ['whitespace in a handover token', () => client.checkHandoverToken('abc\tdef', ALICE)],
  ['a slash in the handover check id', () => client.checkHandoverToken('abc', `${ALICE}/../${BOB}`)],
];

describe('Open API client, path parameters', () => {
  it.each(attempts)('refuses %s before any request', async (_what, attempt) => {
    const e = await rejectionOf(attempt());
    expect(e).toMatchObject({ kind: 'invalid_request', executed: 'no' });
    expect(credentials.calls).toBe(0);
    const stats = await h.stats();
    expect(stats.token_requests).toBe(0);
    expect(await h.totalRequests()).toBe(0);
  });

  it('reaches the right customer with an external id using every allowed symbol', async () => {
    const registered = await client.registerMember({ external_ids: { pos_card: 'A*b-c.d_9' } });
    expect((await client.getMemberByExternalId('pos_card', 'A*b-c.d_9')).id).toBe(registered.id);
  });

  it('percent-encodes a unique id with URL-special characters so it stays one path segment', async () => {
    await client.registerMember({ unique_id: 'shop?a=1#x&y' });
    expect((await client.getMemberByUniqueId('shop?a=1#x&y')).unique_id).toBe('shop?a=1#x&y');
  });
});
