import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SmaregiStandIn, startSmaregiStandIn } from '../../../../../stand-ins/smaregi/index.js';
import { createSmaregiClient, SmaregiError } from '../../../../../shared/sources/smaregi/index.js';
import { smaregiFixture } from '../../../../../kit/smaregi.js';

/** The Platform API client against the stand-in over real HTTP: tokens, throttling, outages. */
describe('the Smaregi API client', () => {
  let standIn: SmaregiStandIn;
  let clock = Date.parse('2026-11-25T00:00:00Z');
  const waits: number[] = [];
  beforeEach(async () => {
    clock = Date.parse('2026-11-25T00:00:00Z');
    waits.length = 0;
    standIn = await startSmaregiStandIn({ contractId: 'c1', clientId: 'app', clientSecret: 'app-secret', now: () => clock });
    standIn.putTransaction(smaregiFixture('transaction-sale-tax-included.json') as never);
    standIn.putCustomer(smaregiFixture('customer-member.json') as never);
  });
  afterEach(() => standIn.close());

  const client = (changes: { clientSecret?: string } = {}) =>
    createSmaregiClient({
      contractId: 'c1',
      apiOrigin: standIn.url,
      idOrigin: standIn.url,
      credentials: async () => ({ clientId: 'app', clientSecret: changes.clientSecret ?? 'app-secret' }),
      sleep: async (ms) => {
        waits.push(ms);
      },
      now: () => clock,
    });
  const fault = (body: unknown) =>
    fetch(`${standIn.url}/__smaregi/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('reads a transaction with its details and its customer', async () => {
    const tx = await client().getTransaction('25');
    expect([tx.details?.length, tx.customer?.customerCode, tx.subtotal]).toEqual([1, 'C-0001', '11000']);
  });

  it('keeps one token for many reads', async () => {
    const c = client();
    await c.getTransaction('25');
    await c.getTransaction('25');
    expect(standIn.grants()).toBe(1);
  });

  it('renews the token before it expires', async () => {
    const c = client();
    await c.getTransaction('25');
    clock += 3_550_000; // 50 s before the hour's end: within the renewal margin
    await c.getTransaction('25');
    expect(standIn.grants()).toBe(2);
  });

  it('renews the token when the API refuses it with 401, and the read succeeds', async () => {
    const c = client();
    await c.getTransaction('25');
    await fetch(`${standIn.url}/__smaregi/expire-tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const tx = await c.getTransaction('25');
    expect([tx.transactionHeadId, standIn.grants()]).toEqual(['25', 2]);
  });

  it('retries a 429 after the Retry-After Smaregi gives', async () => {
    await fault({ status: 429, times: 1, retry_after: '2' });
    const tx = await client().getTransaction('25');
    expect([tx.transactionHeadId, waits]).toEqual(['25', [2000]]);
  });

  it('reports Smaregi down as unavailable after its retries', async () => {
    await fault({ status: 503, times: 10 });
    await expect(client().getTransaction('25')).rejects.toMatchObject({ kind: 'unavailable', status: 503 });
  });

  it('says not_found for a transaction Smaregi does not have', async () => {
    await expect(client().getTransaction('99')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('says unauthorized for wrong app credentials, without the secret in the message', async () => {
    const error = await client({ clientSecret: 'wrong-secret-value' })
      .getTransaction('25')
      .catch((e: unknown) => e);
    expect(error instanceof SmaregiError && [error.kind, error.message.includes('wrong-secret-value')]).toEqual(['unauthorized', false]);
  });

  it('lists the transactions updated in a window, page by page', async () => {
    for (const id of ['30', '31', '32'])
      standIn.putTransaction({ ...(smaregiFixture('transaction-sale-tax-included.json') as object), transactionHeadId: id } as never);
    const c = client();
    const window = { from: '2026-11-25T00:00:00+09:00', to: '2026-11-26T00:00:00+09:00', limit: 2 };
    const pages = [await c.listTransactions({ ...window, page: 1 }), await c.listTransactions({ ...window, page: 2 })];
    expect(pages.map((p) => p.items.map((i) => i.transactionHeadId))).toEqual([
      ['25', '30'],
      ['31', '32'],
    ]);
  });
});
