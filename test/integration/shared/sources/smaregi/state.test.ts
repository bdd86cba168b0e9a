import { beforeAll, describe, expect, it } from 'vitest';
import { createTillMirrors, createTillReturns } from '../../../../../shared/ledger/index.js';
import type { Checkpoint, CheckpointStep } from '../../../../../shared/points/index.js';
import { SmaregiSettings, smaregiThinEvent } from '../../../../../shared/sources/index.js';
import { SENDER_RESOLUTIONS, withSenderResolution } from '../../../../../shared/sources/resolution.entry.js';
import { smaregiTillTransaction, smaregiTransaction } from '../../../../../kit/smaregi.js';
import { IN_DOUBT_SECONDS, useHarness } from '../../points/harness.js';
import { useSmaregiStandIn } from '../../../../support/smaregi.js';

/**
 * A till spend followed through the sale's state (shared/sources/smaregi/state.ts, spend.ts) when two
 * deliveries of one sale interleave, on the real emulator, dynalite and the Smaregi stand-in over HTTP.
 * The gold member is the till's customer `cust-gold` (external key `shopify`).
 */
const h = useHarness();
const till = useSmaregiStandIn();
beforeAll(() => {
  till.standIn.putCustomer({ customerId: '1', customerCode: 'cust-gold', point: '100000' } as never);
});

const settings = SmaregiSettings.parse({ contractId: 'c1', externalKey: 'shopify', tillPoints: 'membership' });
const processor = (checkpoint?: Checkpoint) =>
  withSenderResolution(
    h.processor(checkpoint ? { checkpoint } : {}),
    { resolutions: SENDER_RESOLUTIONS, clients: { smaregi: () => till.client } },
    { ledger: h.ledger, openapi: h.api },
  );
const deliver = (id: string, action: string) => smaregiThinEvent(id, 'smaregi', settings, h.clock(), action);
const sale = (id: string, spendPoint: string) =>
  till.standIn.putTransaction(
    smaregiTransaction('transaction-sale-tax-included.json', id, { customerCode: 'cust-gold', spendPoint }) as never,
  );
const marker = (orderId: string) => `lp1:smaregi:order:${encodeURIComponent(orderId)}`;

/** Runs `first` held at the first `step` it reaches while `meanwhile` runs to its end: a fixed interleaving of two deliveries. */
async function whileHeldAt(step: CheckpointStep, first: () => unknown, meanwhile: () => Promise<unknown>): Promise<void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const atStep = new Promise<void>((resolve) => (reached = resolve));
  let holding = true;
  const checkpoint: Checkpoint = async (s) => {
    if (s !== step || !holding) return;
    holding = false;
    reached();
    await held;
  };
  const running = processor(checkpoint).process(first());
  // A first delivery that ends before the step is the test's error, not a wait.
  await Promise.race([atStep, running.then((o) => Promise.reject(new Error(`ended before ${step}: ${JSON.stringify(o)}`)))]);
  await meanwhile();
  release();
  await running;
}

describe('a till spend whose payment is corrected while a delivery that read the spend is still running', () => {
  it('gives the spent 300 points back once when the correcting delivery ran before the deduction was claimed', async () => {
    sale('4001', '300');
    const before = await h.balance('member-gold');
    // The first delivery read the sale spending 300 and credited it; the payment is corrected (no spend)
    // and its delivery runs to its end before the first one claims the deduction.
    await whileHeldAt(
      'purchase:recorded',
      () => deliver('4001', 'created'),
      async () => {
        sale('4001', '0');
        await processor().process(deliver('4001', 'edited'));
      },
    );
    expect([
      await h.entries('member-gold', marker('4001/spend-1')),
      await h.entries('member-gold', marker('4001/spend-1/back')),
      (await h.balance('member-gold')) - before,
    ]).toEqual([[-300], [300], 500]);
  }, 120_000);
});

describe('a sale’s earning mirrored to the till record when Smaregi’s answer to the add is lost (issues 50/51)', () => {
  const steps = () => createTillMirrors({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock });
  const mirroring = () =>
    withSenderResolution(
      h.processor(),
      { resolutions: SENDER_RESOLUTIONS, clients: { smaregi: () => till.client } },
      { ledger: h.ledger, openapi: h.api, tillMirrors: steps(), inDoubtSeconds: IN_DOUBT_SECONDS },
    );
  const writeFault = (body: unknown) =>
    fetch(`${till.standIn.url}/__smaregi/write-faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const point = () => Number(till.standIn.customerPoint('1'));

  it('ends the add done exactly once, not in conflict, when a till spend of the same customer came while it was in doubt', async () => {
    sale('4201', '0');
    const start = point();
    await writeFault({ status: 500, times: 1, commit: true });
    const first = await mirroring().process(deliver('4201', 'created'));
    const earned = (await h.entries('member-gold', marker('4201')))[0] ?? 0;
    // While the add is in doubt the member spends 300 at the till, and that sale is delivered too.
    h.clock.advance(1_000);
    sale('4202', '300');
    await mirroring().process(deliver('4202', 'created'));
    const spentSaleEarned = (await h.entries('member-gold', marker('4202')))[0] ?? 0;
    h.clock.advance(IN_DOUBT_SECONDS * 1000);
    const again = await mirroring().process(deliver('4201', 'created'));
    const step = await steps().get('smaregi', marker('4201'));
    expect([first.kind, again.action, step?.state, point() - start]).toEqual([
      'outcome_unknown',
      'ack',
      'done',
      earned - 300 + spentSaleEarned,
    ]);
  }, 120_000);

  it('sets the delivery aside until the add’s in-doubt horizon ends, then sends an add that did not land once', async () => {
    sale('4211', '0');
    const start = point();
    await writeFault({ status: 500, times: 1, commit: false });
    const first = await mirroring().process(deliver('4211', 'created'));
    const sentAt = Date.parse((await steps().get('smaregi', marker('4211')))?.sentAt ?? '');
    h.clock.advance(IN_DOUBT_SECONDS * 1000);
    const again = await mirroring().process(deliver('4211', 'created'));
    await mirroring().process(deliver('4211', 'created'));
    expect([first.kind === 'outcome_unknown' && first.until, again.action, point() - start]).toEqual([
      sentAt + IN_DOUBT_SECONDS * 1000,
      'ack',
      (await h.entries('member-gold', marker('4211')))[0],
    ]);
  }, 120_000);
});

describe('a till sale’s points taken off the till record when its transaction is returned or deleted (issue 51)', () => {
  const returning = SmaregiSettings.parse({ contractId: 'c1', externalKey: 'shopify', tillPoints: 'membership', returns: 'auto' });
  const mirroring = () =>
    withSenderResolution(
      h.processor(),
      { resolutions: SENDER_RESOLUTIONS, clients: { smaregi: () => till.client } },
      {
        ledger: h.ledger,
        openapi: h.api,
        tillMirrors: createTillMirrors({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock }),
        tillReturns: createTillReturns({ client: h.dynamo.documentClient, tableName: h.dynamo.tableName, clock: h.clock }),
        inDoubtSeconds: IN_DOUBT_SECONDS,
      },
    );
  const ring = (id: string, quantity: number, returned: boolean, productId = 'R-4301') => {
    const at = new Date(h.clock()).toISOString();
    till.standIn.putTransaction({
      ...smaregiTillTransaction(id, { productId, quantity, at }, returned),
      customerCode: 'cust-gold',
    } as never);
    return mirroring().process(smaregiThinEvent(id, 'smaregi', returning, h.clock(), 'created'));
  };

  it('takes a deleted sale’s points off the till record', async () => {
    await ring('4311', 1, false, 'R-4311');
    const afterSale = Number(till.standIn.customerPoint('1'));
    till.standIn.deleteTransaction('4311');
    await mirroring().process(smaregiThinEvent('4311', 'smaregi', returning, h.clock(), 'deleted'));
    expect([Number(till.standIn.customerPoint('1')) - afterSale, await h.entries('member-gold', 'lp1:smaregi:refund:4311:cancel')]).toEqual(
      [-500, [-500]],
    );
  }, 120_000);

  it('takes the return’s share of the sale’s points off the till record', async () => {
    await ring('4301', 2, false);
    const afterSale = Number(till.standIn.customerPoint('1'));
    h.clock.advance(86_400_000);
    await ring('4302', 1, true);
    expect([
      Number(till.standIn.customerPoint('1')) - afterSale,
      await h.entries('member-gold', 'lp1:smaregi:refund:4301:return-4302'),
    ]).toEqual([-500, [-500]]);
  }, 120_000);
});
