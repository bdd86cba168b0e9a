import { describe, expect, it } from 'vitest';
import {
  createLedgerRedactor,
  createTillReturns,
  type Ledger,
  type LedgerRedactor,
  orderKey,
  REDACTION_DELETED_KEYS,
  tillReturnKey,
  tillSaleKey,
} from '../../../../shared/ledger/index.js';
import { type LocalDynamo, manualClock } from '../../../../kit/dynalite.js';
import { withLocalLedger } from '../../../support/ledger.js';

/**
 * The ledger's redaction deletes only the records whose key names the shop customer, the keys the
 * stack lets the worker delete (infra/constructs/ledger-table.ts): anything else is refused by name
 * before a request is sent, in every setup, not only where IAM would refuse it.
 */
const clock = manualClock();
let ledger: Ledger;
let redactor: LedgerRedactor;
let dynamo: LocalDynamo;

withLocalLedger({ clock, leaseSeconds: 60 }, (made) => {
  ledger = made.ledger;
  dynamo = made.dynamo;
  redactor = createLedgerRedactor({ client: dynamo.documentClient, tableName: dynamo.tableName, clock });
});

describe('ledger redaction: what it deletes', () => {
  it('deletes a link mark, a key the stack lets the worker delete', async () => {
    const customer = { source: 'shopify', externalKey: 'shopify', externalId: 'mark-1' };
    await ledger.markCustomerLinked(customer);
    expect(REDACTION_DELETED_KEYS).toContain('linked#');
    expect(await redactor.deleteLinkMark(customer)).toBe(true);
    expect(await ledger.customerLinked(customer)).toBe(false);
  });

  it('refuses to delete an order record, which a redaction changes in place, and leaves it', async () => {
    const ref = { source: 'shopify', orderId: 'keep-1' };
    await ledger.claimPurchase({ ...ref, owner: 'a', eligibleAmount: 1000, currency: 'JPY' });
    await expect(redactor.deleteScanned({ pk: orderKey(ref.source, ref.orderId) })).rejects.toThrow(
      'a redaction deletes no record keyed order#',
    );
    expect(await ledger.getOrder(ref)).toMatchObject({ state: 'pending', eligibleAmount: 1000 });
  });
});

describe('ledger redaction: a till’s returns and sales (an in-store member’s erase)', () => {
  const tills = () => createTillReturns({ client: dynamo.documentClient, tableName: dynamo.tableName, clock });
  const member = { source: 'smaregi', externalKey: 'smaregi', externalId: 'C-RED-1' };
  const line = { productId: 'P-1', quantity: '1' };

  it('keeps a sale it took the member out of as it is when a delivery read before the erase remembers it again', async () => {
    const sale = { ...member, saleId: '9101', storeId: '1', occurredAt: '2026-11-30T10:00:00+09:00', lines: [line] };
    await tills().rememberSale(sale);
    expect(await redactor.redactTillSale({ pk: tillSaleKey('smaregi', '9101') })).toBe(true);
    await tills().rememberSale(sale);
    const query = { ...member, storeId: '1', from: '0', until: '9' };
    expect([(await tills().getSale('smaregi', '9101'))?.externalId, await tills().salesOf(query)]).toEqual([undefined, []]);
  });

  it('leaves a return an operator applied meanwhile applied, taking only the member out', async () => {
    const returned = { ...member, returnId: '9102', occurredAt: '2026-11-30T11:00:00+09:00', amount: '1000', currency: 'JPY' };
    await tills().record({ ...returned, rule: 'major_floor', refundTitle: 'return {order}', lines: [{ ...line, amount: '1100' }] });
    await tills().apply('smaregi', '9102', { saleId: '9101', refundId: 'return-9102', by: 'tanaka' });
    // Read as open before the apply: the erase's dismissal is refused, the member still goes.
    expect(await redactor.redactTillReturn({ pk: tillReturnKey('smaregi', '9102'), status: 'open' })).toBe(true);
    const kept = await tills().get('smaregi', '9102');
    expect([kept?.status, kept?.saleId, kept?.appliedBy, kept?.externalId, kept?.amount]).toEqual([
      'applied',
      '9101',
      'tanaka',
      undefined,
      '1000',
    ]);
  });
});
