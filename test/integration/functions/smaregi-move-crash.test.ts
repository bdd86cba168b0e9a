import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { depsFromEnv, makeHandler } from '../../../functions/process-events.js';
import { type Checkpoint, type CheckpointStep, purchaseMarker, refundMarker } from '../../../shared/points/index.js';
import { SmaregiSettings, smaregiThinEvent } from '../../../shared/sources/index.js';
import { type SmaregiStandIn, startSmaregiStandIn } from '../../../stand-ins/smaregi/index.js';
import { smaregiTransaction } from '../../../kit/smaregi.js';
import { emulatorConfig, useHarness, workerEnv } from '../shared/points/harness.js';
import { sqsEvent as eventOf, sqsRecord } from '../../support/sqs-record.js';

/**
 * A Smaregi sale credited to one member, then edited to name another customer, with the worker dying
 * between the protocol's steps (after a points call landed, before it was recorded). The message comes
 * back after the lease and the in-doubt horizon: every call is found by its marker, none is made twice.
 * taro (C-0001) and hanako (C-0002) are gold (5 %): the ¥11,000 sale including ¥1,000 tax earns 500.
 * C-0099 is a Smaregi customer whose code no member holds.
 */
const h = useHarness();
const TARO = 'member-taro';
const HANAKO = 'member-hanako';
const MEMBERS = [
  { id: TARO, login_id: 'taro', password: 'pass1234', rank: 'gold', external_ids: { smaregi: 'C-0001' } },
  { id: HANAKO, login_id: 'hanako', password: 'pass1234', rank: 'gold', external_ids: { smaregi: 'C-0002' } },
];
const CUSTOMERS = { taro: { customerId: '1', customerCode: 'C-0001' }, hanako: { customerId: '2', customerCode: 'C-0002' } };
const NOBODY = { customerId: '3', customerCode: 'C-0099' };

let standIn: SmaregiStandIn;
beforeAll(async () => {
  standIn = await startSmaregiStandIn({ contractId: 'c1', clientId: 'app', clientSecret: 'app-secret' });
});
afterAll(async () => {
  await standIn.close();
});
beforeEach(async () => {
  await h.emulator.reset(emulatorConfig({ members: MEMBERS, external_keys: ['smaregi'] }));
});

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
let sequence = 0;
/** The worker built as the stack builds it; `crashAt`: it dies the first time it reaches that step. */
function worker(crashAt?: CheckpointStep) {
  let armed = crashAt !== undefined;
  const checkpoint: Checkpoint = (step) => {
    if (armed && step === crashAt) {
      armed = false;
      throw new Error('simulated crash');
    }
  };
  const access = {
    smaregi: { contractId: 'c1', apiOrigin: standIn.url, idOrigin: standIn.url, clientId: 'app', clientSecret: 'app-secret' },
  };
  const env = workerEnv(h, { LEASE_SECONDS: '60', REFUND_WAIT_SECONDS: '120', SMAREGI: JSON.stringify(access) });
  return makeHandler(depsFromEnv(env, { clock: h.clock, logger: quiet, checkpoint }));
}
/** One delivery of the transaction's thin event; answers whether the message came back (a failure). */
async function deliver(id: string, crashAt?: CheckpointStep): Promise<boolean> {
  const thin = smaregiThinEvent(id, 'smaregi', SmaregiSettings.parse({ contractId: 'c1' }), h.clock(), 'edited');
  sequence += 1;
  const record = sqsRecord(thin, { id: `move-msg-${sequence}`, groupId: `smaregi:${id}`, sentAt: h.clock(), sequence });
  const answer = await worker(crashAt)(eventOf(record) as SQSEvent);
  return answer.batchItemFailures.length > 0;
}
const sale = (id: string, customer: { customerId: string; customerCode: string }) =>
  standIn.putTransaction(smaregiTransaction('transaction-sale-tax-included.json', id, customer) as never);
const refundEntries = (member: string, id: string, refundId: string) => h.entries(member, refundMarker('smaregi', id, refundId));

describe('Smaregi: a credited sale moved to another customer, the worker dying between the steps', () => {
  it('takes the 500 back from taro once when the sale is moved to a customer no member holds and the worker dies after the debit landed', async () => {
    sale('51', CUSTOMERS.taro);
    expect([await deliver('51'), await h.balance(TARO)]).toEqual([false, 500]);
    sale('51', NOBODY);
    expect(await deliver('51', 'refund:granted')).toBe(true);
    h.passHorizon();
    expect(await deliver('51')).toBe(false);
    expect(await deliver('51')).toBe(false);
    const refund = await h.ledger.getRefund({ source: 'smaregi', orderId: '51', refundId: 'detached' });
    expect([await h.balance(TARO), await refundEntries(TARO, '51', 'detached'), refund?.state, refund?.outcome]).toEqual([
      0,
      [-500],
      'done',
      'debited',
    ]);
  });

  it('credits hanako once and takes taro’s 500 back once when the sale is moved from taro to hanako and the worker dies after each call landed', async () => {
    sale('52', CUSTOMERS.taro);
    expect(await deliver('52')).toBe(false);
    sale('52', CUSTOMERS.hanako);
    // Dies after hanako's credit landed, before it was recorded; then after taro's debit landed.
    expect(await deliver('52', 'purchase:granted')).toBe(true);
    h.passHorizon();
    expect(await deliver('52', 'refund:granted')).toBe(true);
    h.passHorizon();
    expect(await deliver('52')).toBe(false);
    expect(await deliver('52')).toBe(false);
    expect([
      await h.balance(TARO),
      await h.balance(HANAKO),
      await h.entries(HANAKO, purchaseMarker('smaregi', '52/up-1')),
      await refundEntries(TARO, '52', 'superseded'),
    ]).toEqual([0, 500, [500], [-500]]);
  });
});
