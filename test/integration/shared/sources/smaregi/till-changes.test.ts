import { describe, expect, it } from 'vitest';
import { SmaregiSettings, smaregiThinEvent } from '../../../../../shared/sources/index.js';
import { useHarness } from '../../points/harness.js';
import { useTillMember } from '../../../../support/smaregi-membership.js';

/**
 * What a till sale's delivery reads of the ledger under `tillPoints: membership` (the till's record mirrors
 * the membership balance), on a stage with no campaigns: no more of the sale's order than a till keeping
 * its own points, and no bonus record. Counted on the real AWS SDK client against dynalite; the gold
 * member (5 %) is the till's customer `cust-gold`; ¥11,000 earns 500.
 */
const h = useHarness();
const { processor, ringUp, point } = useTillMember(h);
const settingsOf = (tillPoints: 'membership' | 'none') =>
  SmaregiSettings.parse({
    contractId: 'c1',
    externalKey: 'shopify',
    returns: 'auto',
    ...(tillPoints === 'membership' ? { tillPoints } : {}),
  });

/** The orders and bonus records the client reads (GetItem, Query, BatchGetItem) while `run` runs, by the key they name. */
async function readsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const reads: string[] = [];
  const name = `countReads-${process.pid}-${Date.now()}`;
  h.dynamo.client.middlewareStack.add(
    (next, context) => async (args) => {
      if (/^(GetItem|Query|BatchGetItem)Command$/.test(String(context.commandName))) {
        const named = JSON.stringify(
          (args.input as Record<string, unknown>).Key ?? (args.input as Record<string, unknown>).ExpressionAttributeValues ?? {},
        );
        reads.push(...(named.match(/(order|bonus)#smaregi#[^"]*/g) ?? []));
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await run();
  } finally {
    h.dynamo.client.middlewareStack.remove(name);
  }
  return reads;
}
/** Rings a ¥11,000 sale up and delivers it (`times` over), under `tillPoints`; what its last delivery read. */
async function creditedSale(id: string, tillPoints: 'membership' | 'none', times = 1) {
  ringUp(id, `P-${id}`, 1);
  const deliver = async () =>
    (await processor().process(smaregiThinEvent(id, 'smaregi', settingsOf(tillPoints), h.clock(), 'created'))).kind;
  for (let n = 1; n < times; n++) await deliver();
  let kind = '';
  const reads = await readsDuring(async () => {
    kind = await deliver();
  });
  return {
    kind,
    // The sale's own order (not its till spends' `<sale>/spend-<g>`, which only a membership till has).
    orderReads: reads.filter((r) => r === `order#smaregi#${id}`).length,
    bonusReads: reads.filter((r) => r.startsWith('bonus#')).length,
  };
}

describe('a till sale credited under tillPoints membership on a stage without campaigns', () => {
  it('reads its order no more often than a till keeping its own points, and no bonus record', async () => {
    const own = await creditedSale('9601', 'none');
    const start = point();
    const mirrored = await creditedSale('9602', 'membership');
    expect([mirrored.kind, point() - start, mirrored.orderReads, mirrored.bonusReads]).toEqual(['credited', 500, own.orderReads, 0]);
  });

  it('reads its order once more than a till keeping its own points when delivered again (the credit it mirrors), and no bonus record', async () => {
    const own = await creditedSale('9611', 'none', 2);
    const mirrored = await creditedSale('9612', 'membership', 2);
    expect([mirrored.kind, mirrored.orderReads, mirrored.bonusReads]).toEqual(['duplicate', own.orderReads + 1, 0]);
  });
});
