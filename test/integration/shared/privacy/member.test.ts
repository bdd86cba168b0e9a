import { describe, expect, it } from 'vitest';
import { createCustomerRecords } from '../../../../shared/customers/index.js';
import { GetCommand } from '../../../../shared/dynamodb/index.js';
import { refundKey } from '../../../../shared/ledger/index.js';
import { describeMemberData, eraseMember, type MemberErasure, type MemberPrivacyDeps } from '../../../../shared/privacy/index.js';
import { purchase, refund, useHarness } from '../points/harness.js';

/** An in-store member's report and erase (shared/privacy/member.ts) on what the real processor wrote (dynalite, the emulator). */
const h = useHarness();

function deps(): MemberPrivacyDeps {
  const { documentClient: client, tableName } = h.dynamo;
  const records = createCustomerRecords({ client, tableName, clock: h.clock, leaseSeconds: 60, ttlDays: 400 });
  return { client, tableName, clock: h.clock, ledger: h.ledger, records };
}
const member = (code: string) => ({ source: 'smaregi', externalKey: 'smaregi', code });
// The test client of the emulator knows the `shopify` external key: the member's code is filed under it here.
const sale = (code: string, orderId: string) =>
  purchase({
    source: 'smaregi',
    orderId,
    eventId: `smaregi:transaction:${orderId}`,
    customer: { externalKey: 'shopify', externalId: code },
  });
const rawItem = async (pk: string) =>
  (await h.dynamo.documentClient.send(new GetCommand({ TableName: h.dynamo.tableName, Key: { pk } }))).Item;

describe("an in-store member's privacy (report, erase)", () => {
  it('finds and erases a return linked to no sale whose stored event names the member, and leaves another member’s', async () => {
    const mine = refund(sale('M-RET-1', 'unlinked'), 'ret-901', 1000, { unlinked: true });
    const theirs = refund(sale('M-RET-2', 'unlinked'), 'ret-902', 1000, { unlinked: true });
    for (const r of [mine, theirs]) expect(await h.processor().process(r)).toMatchObject({ kind: 'skipped', reason: 'unlinked_refund' });
    expect((await describeMemberData(deps(), member('M-RET-1'))).returns).toEqual([
      { refundId: 'ret-901', outcome: 'skipped', recordedAt: expect.any(String) },
    ]);
    expect(await eraseMember(deps(), member('M-RET-1'))).toMatchObject({ returns: 1, tombstone: 'new', busy: [] });
    expect(JSON.stringify(await rawItem(refundKey('smaregi', 'unlinked', 'ret-901')))).not.toContain('M-RET-1');
    expect(JSON.stringify(await rawItem(refundKey('smaregi', 'unlinked', 'ret-902')))).toContain('M-RET-2');
  });

  it('leaves a sale being processed and reports it busy, then erases it when run again', async () => {
    await h.api.registerMember({ external_ids: { shopify: 'M-BUSY-1' } });
    const p = sale('M-BUSY-1', `busy-${process.pid}`);
    let meanwhile: MemberErasure | undefined;
    const [credited] = await h.whileHeldAt('purchase:granted', p, async () => {
      meanwhile = await eraseMember(deps(), member('M-BUSY-1'));
      return { kind: 'skipped', action: 'ack', reason: 'test' };
    });
    expect([credited.kind, meanwhile]).toEqual(['credited', expect.objectContaining({ orders: 0, busy: [`order ${p.orderId}`] })]);
    expect(await eraseMember(deps(), member('M-BUSY-1'))).toMatchObject({ orders: 1, tombstone: 'kept', busy: [] });
    expect((await h.ledger.getOrder(p))?.externalId).toBeUndefined();
  });
});
