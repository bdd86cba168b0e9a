import { describe, expect, it } from 'vitest';
import {
  createLedgerRedactor,
  type Ledger,
  type LedgerRedactor,
  orderKey,
  REDACTION_DELETED_KEYS,
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
