import { beforeAll, describe, expect, it } from 'vitest';
import { createCustomerRecords } from '../../../../shared/customers/index.js';
import { GetCommand } from '../../../../shared/dynamodb/index.js';
import type { PrivacyEvent } from '../../../../shared/events/index.js';
import { createRedemptionLedger, type RedemptionLedger, type RedemptionRecord } from '../../../../shared/ledger/index.js';
import { createPrivacyRequests, type PrivacyDeps, processPrivacyEvent } from '../../../../shared/privacy/index.js';
import { createQuarantineStore, createQuarantineTable, type QuarantineStore } from '../../../../shared/quarantine/index.js';
import { useHarness } from '../points/harness.js';

/**
 * customers/redact and shop/redact on redemption records (dynalite ledger table, the real redemption
 * ledger module): the records keep their amounts and state, their code and order still find them, and
 * nothing in them names the shop customer.
 */
const h = useHarness();
const SHOP = 'example.myshopify.com';
let quarantine: QuarantineStore;
let redemptions: RedemptionLedger;
let n = 0;

beforeAll(async () => {
  const tableName = `quarantine-redemptions-${process.pid}`;
  await createQuarantineTable(h.dynamo.client, tableName);
  quarantine = createQuarantineStore({ client: h.dynamo.documentClient, tableName, clock: h.clock, ttlDays: 90 });
  redemptions = createRedemptionLedger({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock });
});

function deps(): PrivacyDeps {
  const { documentClient: client, tableName } = h.dynamo;
  return {
    client,
    tableName,
    ledger: h.ledger,
    records: createCustomerRecords({ client, tableName, clock: h.clock, leaseSeconds: 60, ttlDays: 400 }),
    quarantine,
    requests: createPrivacyRequests({ client, tableName, clock: h.clock }),
    ledgerTtlDays: 400,
    clock: h.clock,
  };
}

function request(action: 'redact_customer' | 'redact_shop', customerId: string | null, shop: Partial<PrivacyEvent> = {}): PrivacyEvent {
  const id = `red-req-${process.pid}-${++n}`;
  return {
    type: 'privacy',
    eventId: `shopify:privacy:${action}:${id}`,
    source: 'shopify',
    action,
    shopDomain: SHOP,
    ...shop,
    customer: customerId === null ? null : { externalKey: 'shopify', externalId: customerId },
    orderIds: [],
    delivery: { id, topic: action === 'redact_shop' ? 'shop/redact' : 'customers/redact' },
  } as PrivacyEvent;
}

/** A redemption of `customerId` in `state` (redeemed: its code open; used: by an order), its lease released. */
async function redemption(
  customerId: string,
  state: 'pending' | 'redeemed' | 'used',
  shopDomain: string | null = SHOP,
): Promise<RedemptionRecord> {
  const owner = `maker-${++n}`;
  const started = await redemptions.start(
    {
      source: 'shopify',
      customerId,
      ...(shopDomain === null ? {} : { shopDomain }),
      memberId: '8f6d2c1e-0001-4000-8000-000000000001',
      requestId: `req-${n}-abcdefgh`,
      points: 300,
      value: '300',
      currency: 'JPY',
      code: `PTS-TEST${String(n).padStart(8, '0')}`,
      expiresAt: new Date(h.clock() + 30 * 86_400_000).toISOString(),
    },
    owner,
  );
  if (!started.created) throw new Error('the test redemption already existed');
  if (state === 'pending') return started.record;
  const fields = { state, deducted: true, discountId: `gid://shopify/DiscountCodeNode/${n}` } as const;
  const orderId = `6${String(n).padStart(12, '0')}`;
  const done = await redemptions.update(started.record.pk, owner, state === 'used' ? { ...fields, orderId } : fields, { release: true });
  if (state === 'used') await redemptions.linkOrder('shopify', orderId, started.record.pk);
  if (!done) throw new Error('lost the test lease');
  return done;
}

const rawItem = async (pk: string) =>
  (await h.dynamo.documentClient.send(new GetCommand({ TableName: h.dynamo.tableName, Key: { pk }, ConsistentRead: true }))).Item;
const FAR = '2999-01-01T00:00:00.000Z';

describe('customers/redact on redemptions', () => {
  it("moves the customer's redemptions to keys naming no customer, keeping amounts, state, code and order", async () => {
    const open = await redemption('7100000001', 'redeemed');
    const used = await redemption('7100000001', 'used');
    const outcome = await processPrivacyEvent(deps(), request('redact_customer', '7100000001'));
    expect(outcome).toMatchObject({ kind: 'redacted', figures: { redemptions: 2 } });

    expect(await rawItem(open.pk)).toBeUndefined();
    expect(await rawItem(used.pk)).toBeUndefined();
    expect(await redemptions.list('7100000001')).toEqual([]);
    for (const before of [open, used]) {
      const after = await redemptions.byCode(before.code);
      expect(after).toMatchObject({
        state: before.state,
        points: 300,
        value: '300',
        memberId: before.memberId,
        code: before.code,
        requestId: before.requestId,
        ...(before.orderId ? { orderId: before.orderId } : {}),
      });
      expect(after?.pk).not.toBe(before.pk);
      expect(JSON.stringify(await rawItem(after?.pk ?? ''))).not.toContain('7100000001');
      expect(after?.leaseOwner).toBeUndefined();
    }
    expect((await redemptions.byOrder('shopify', used.orderId ?? '')).map((r) => r.code)).toEqual([used.code]);
    // The sweep still finds the open code past its end, under its new key.
    const moved = await redemptions.byCode(open.code);
    expect(await redemptions.listDue('shopify', FAR)).toContain(moved?.pk);
    expect(await redemptions.listDue('shopify', FAR)).not.toContain(open.pk);
  });

  it("leaves another customer's redemptions untouched, and a second request finds nothing more to do", async () => {
    const mine = await redemption('7100000002', 'redeemed');
    const theirs = await redemption('7100000003', 'redeemed');
    await processPrivacyEvent(deps(), request('redact_customer', '7100000002'));
    expect(await processPrivacyEvent(deps(), request('redact_customer', '7100000002'))).toMatchObject({ figures: { redemptions: 0 } });
    expect(await rawItem(mine.pk)).toBeUndefined();
    expect(await rawItem(theirs.pk)).toMatchObject({ customerId: '7100000003', state: 'redeemed' });
  });

  it('waits for a redemption whose deduction is in flight: lease_held, then done once it is redeemed', async () => {
    const pending = await redemption('7100000004', 'pending');
    expect(await processPrivacyEvent(deps(), request('redact_customer', '7100000004'))).toMatchObject({
      kind: 'lease_held',
      action: 'retry',
    });
    expect(await rawItem(pending.pk)).toMatchObject({ customerId: '7100000004', state: 'pending' });
    await redemptions.update(pending.pk, pending.leaseOwner ?? '', { state: 'redeemed', deducted: true }, { release: true });
    expect(await processPrivacyEvent(deps(), request('redact_customer', '7100000004'))).toMatchObject({
      kind: 'redacted',
      figures: { redemptions: 1 },
    });
    expect(await rawItem(pending.pk)).toBeUndefined();
  });
});

describe('shop/redact on redemptions', () => {
  it("moves the shop's redemptions and leaves another shop's and, unless the source names the shop alone, those naming none", async () => {
    const ours = await redemption('7100000005', 'used');
    const other = await redemption('7100000006', 'redeemed', 'other.myshopify.com');
    const unnamed = await redemption('7100000007', 'redeemed', null);
    await processPrivacyEvent(deps(), request('redact_shop', null));
    expect(await rawItem(ours.pk)).toBeUndefined();
    expect(await rawItem(other.pk)).toMatchObject({ customerId: '7100000006' });
    expect(await rawItem(unnamed.pk)).toMatchObject({ customerId: '7100000007' });

    await processPrivacyEvent(deps(), request('redact_shop', null, { soleShop: true }));
    expect(await rawItem(unnamed.pk)).toBeUndefined();
    expect(await rawItem(other.pk)).toMatchObject({ customerId: '7100000006' });
  });
});
