import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SmaregiStandIn, startSmaregiStandIn } from '../../../../stand-ins/smaregi/index.js';
import { createSmaregiClient, type SmaregiError } from '../../../../shared/sources/smaregi/index.js';
import { smaregiTransaction } from '../../../../kit/smaregi.js';

/** The Platform API stand-in, over real HTTP, where it must behave as Smaregi does (docs/smaregi.md, "Locally"). */
describe('the Smaregi stand-in', () => {
  let standIn: SmaregiStandIn;
  let clock = Date.parse('2026-11-25T01:00:00Z');
  let token = '';
  beforeEach(async () => {
    clock = Date.parse('2026-11-25T01:00:00Z');
    standIn = await startSmaregiStandIn({
      contractId: 'c1',
      clientId: 'app',
      clientSecret: 'app-secret',
      throttlePerSecond: 3,
      now: () => clock,
    });
    const grant = await fetch(`${standIn.url}/app/c1/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('app:app-secret').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials&scope=pos.transactions:read',
    });
    token = ((await grant.json()) as { access_token: string }).access_token;
    const at = (hour: number) => `2026-11-25T${String(hour).padStart(2, '0')}:00:00+09:00`;
    for (const [id, hour, division] of [
      ['11', 9, '1'],
      ['12', 8, '2'],
      ['13', 10, '10'],
    ] as const) {
      standIn.putTransaction(
        smaregiTransaction('transaction-sale-tax-included.json', id, {
          transactionDateTime: at(hour),
          terminalTranDateTime: at(hour),
          updDateTime: at(hour),
          transactionHeadDivision: division,
        }) as never,
      );
    }
  });
  afterEach(() => standIn.close());

  const get = async (path: string) => {
    const res = await fetch(`${standIn.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as unknown };
  };
  const ids = (body: unknown) => (body as { transactionHeadId: string }[]).map((t) => t.transactionHeadId);

  it('lists by any one of its date filters, and refuses a list without one', async () => {
    const q = (params: string) => get(`/c1/pos/transactions?${params}`);
    const byTerminal = await q(
      'terminal_tran_date_time-from=2026-11-25T08:30:00%2B09:00&terminal_tran_date_time-to=2026-11-25T11:00:00%2B09:00',
    );
    clock += 1000;
    const bySumDate = await q('sum_date=2026-11-25');
    clock += 1000;
    const none = await q('limit=10');
    expect([ids(byTerminal.body), ids(bySumDate.body), none.status]).toEqual([['11', '13'], ['11', '12', '13'], 400]);
  });

  it('honours sort, descending too, and filters by transaction_head_division', async () => {
    const sorted = await get('/c1/pos/transactions?sum_date=2026-11-25&sort=transactionDateTime:desc');
    clock += 1000;
    const layaways = await get('/c1/pos/transactions?sum_date=2026-11-25&transaction_head_division=10');
    expect([ids(sorted.body), ids(layaways.body)]).toEqual([['13', '11', '12'], ['13']]);
  });

  it('answers 429 with Retry-After past its reads per second, for the whole contract, and reads again the next second', async () => {
    const statuses: (number | string | null)[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get('/c1/pos/transactions/11')).status);
    const throttled = await get('/c1/pos/transactions/12');
    clock += 1000;
    const next = await get('/c1/pos/transactions/12');
    expect([statuses, throttled.status, throttled.retryAfter, next.status]).toEqual([[200, 200, 200, 429], 429, '1', 200]);
  });

  it('gives the lines’ main fields only with with_details=summary', async () => {
    const { body } = await get('/c1/pos/transactions/11?with_details=summary');
    const [line] = (body as { details: Record<string, unknown>[] }).details;
    expect([line?.unitDiscountedSum, line?.taxIncludeProportional]).toEqual(['11000', undefined]);
  });

  it('makes a return-cancellation’s two records, each naming the other, in one call', async () => {
    const made = await fetch(`${standIn.url}/__smaregi/return-cancellations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ transactionHeadId: '11', newTransactionHeadId: '14' }),
    });
    const original = (await get('/c1/pos/transactions/11')).body as Record<string, unknown>;
    clock += 1000;
    const record = (await get('/c1/pos/transactions/14?with_details=all')).body as Record<string, unknown>;
    expect({
      made: made.status,
      original: [original.disposeDivision, original.disposeServerTransactionHeadId],
      record: [
        record.disposeDivision,
        record.disposeServerTransactionHeadId,
        record.total,
        (record.details as { unitDiscountedSum: string }[])[0]?.unitDiscountedSum,
      ],
    }).toEqual({ made: 201, original: ['1', '14'], record: ['2', '11', '-11000', '-11000'] });
  });
});

/** 会員ポイント更新 through the worker's own client (shared/sources/smaregi), as the till-points mirror calls it. */
describe('the Smaregi stand-in: a customer’s points', () => {
  let standIn: SmaregiStandIn;
  beforeEach(async () => {
    standIn = await startSmaregiStandIn({ contractId: 'c1', clientId: 'app', clientSecret: 'app-secret' });
    standIn.putCustomer({ customerId: '7', customerCode: 'C-0007', point: '120' } as never);
  });
  afterEach(() => standIn.close());
  const client = () =>
    createSmaregiClient({
      contractId: 'c1',
      apiOrigin: standIn.url,
      idOrigin: standIn.url,
      credentials: async () => ({ clientId: 'app', clientSecret: 'app-secret' }),
      sleep: async () => undefined,
    });

  it('sets the customer’s points to the value sent, not adding to them, the same again changing nothing', async () => {
    const c = client();
    await c.setCustomerPoint('7', 450);
    await c.setCustomerPoint('7', 450);
    await c.close();
    expect(standIn.customerPoint('7')).toBe('450');
  });

  it('refuses a token that did not ask for pos.customers:write with 403, and an unknown customer with not_found', async () => {
    const grant = await fetch(`${standIn.url}/app/c1/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from('app:app-secret').toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials&scope=pos.transactions:read pos.customers:read',
    });
    const readToken = ((await grant.json()) as { access_token: string }).access_token;
    const res = await fetch(`${standIn.url}/c1/pos/customers/7/point`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${readToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ point: '1' }),
    });
    const c = client();
    const unknown = await c.setCustomerPoint('8', 1).catch((e: unknown) => e);
    await c.close();
    expect([res.status, (unknown as SmaregiError).kind, standIn.customerPoint('7')]).toEqual([403, 'not_found', '120']);
  });
});

/** As strict as Smaregi with a customer's points: the till spends only what the record holds (issue 51, item 6). */
describe('the Smaregi stand-in: points spent at the till and added relatively', () => {
  let standIn: SmaregiStandIn;
  beforeEach(async () => {
    standIn = await startSmaregiStandIn({ contractId: 'c1', clientId: 'app', clientSecret: 'app-secret' });
  });
  afterEach(() => standIn.close());
  const admin = (path: string, body?: unknown) =>
    fetch(`${standIn.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
  const customer = async (id: string) => (await (await admin(`/__smaregi/customers/${id}`)).json()) as Record<string, unknown>;
  const sale = (id: string, spendPoint: string, changes: Record<string, unknown> = {}) =>
    smaregiTransaction('transaction-sale-tax-included.json', id, { customerId: '7', spendPoint, ...changes });
  const client = () =>
    createSmaregiClient({
      contractId: 'c1',
      apiOrigin: standIn.url,
      idOrigin: standIn.url,
      credentials: async () => ({ clientId: 'app', clientSecret: 'app-secret' }),
      sleep: async () => undefined,
    });

  it('lists only one member’s transactions by customer_code, a head naming the member by id only included', async () => {
    await admin('/__smaregi/customers', { customerId: '7', customerCode: 'C-0007', point: '1200' });
    await admin('/__smaregi/customers', { customerId: '8', customerCode: 'C-0008', point: '0' });
    await admin('/__smaregi/transactions', sale('71', '0'));
    await admin('/__smaregi/transactions', sale('72', '0', { customerId: '8' }));
    await admin('/__smaregi/transactions', sale('73', '0', { customerId: null, customerCode: 'C-0007' }));
    const now = Date.now();
    const window = { from: new Date(now - 60_000).toISOString(), to: new Date(now + 60_000).toISOString(), page: 1, limit: 100 };
    const { items } = await client().listTransactions({ ...window, customerCode: 'C-0007' });
    expect(items.map((t) => t.transactionHeadId)).toEqual(['71', '73']);
  });

  it('answers the customer as stored, its point included, on GET /__smaregi/customers/{id}', async () => {
    await admin('/__smaregi/customers', { customerId: '7', customerCode: 'C-0007', lastName: '山田', point: '1200' });
    expect(await customer('7')).toEqual({ customerId: '7', customerCode: 'C-0007', lastName: '山田', point: '1200' });
  });

  it('takes a till sale’s spendPoint off the customer’s point, and gives it back when the sale is voided', async () => {
    await admin('/__smaregi/customers', { customerId: '7', customerCode: 'C-0007', point: '1200' });
    await admin('/__smaregi/transactions', sale('41', '300'));
    const spent = (await customer('7')).point;
    await admin('/__smaregi/transactions', sale('41', '300', { cancelDivision: '1' }));
    expect([spent, (await customer('7')).point]).toEqual(['900', '1200']);
  });

  it('refuses a till sale spending more points than the customer holds, and stores nothing of it', async () => {
    await admin('/__smaregi/customers', { customerId: '7', customerCode: 'C-0007', point: '200' });
    const res = await admin('/__smaregi/transactions', sale('42', '201'));
    const c = client();
    const stored = await c.getTransaction('42').catch((e: unknown) => (e as SmaregiError).kind);
    await c.close();
    expect([res.status, (await customer('7')).point, stored]).toEqual([422, '200', 'not_found']);
  });

  it('adds to the customer’s point with point/add, takes off with a negative value, and refuses going below 0', async () => {
    await admin('/__smaregi/customers', { customerId: '7', customerCode: 'C-0007', point: '100' });
    const c = client();
    const added = await c.addCustomerPoint('7', 50);
    const taken = await c.addCustomerPoint('7', -120);
    const refused = await c.addCustomerPoint('7', -31).catch((e: unknown) => e);
    await c.close();
    expect([added, taken, (refused as SmaregiError).status, (await customer('7')).point]).toEqual([150, 30, 400, '30']);
  });
});
