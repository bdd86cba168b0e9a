import type { SQSEvent } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { depsFromEnv, makeHandler } from '../../../functions/process-events.js';
import type { Checkpoint } from '../../../shared/points/index.js';
import { SmaregiSettings, smaregiThinEvent } from '../../../shared/sources/index.js';
import { startSmaregiStandIn } from '../../../stand-ins/smaregi/index.js';
import { smaregiTransaction } from '../../../kit/smaregi.js';
import { emulatorConfig, useHarness, workerEnv } from '../shared/points/harness.js';
import { sqsEvent as eventOf, sqsRecord } from '../../support/sqs-record.js';

/**
 * A Smaregi sale edited down with no webhook for the edit: its adjustment refund `adj-<T>` booked its
 * debit on the order, then the worker died (`refund:applied`) before the refund record was finished.
 * The message comes back: the thin event resolves against an order whose net already equals the edited
 * amount, so the refund must be sent again for its record to end in its outcome (debited once).
 */
const h = useHarness();
const GOLD = 'member-gold';
const MEMBERS = [{ id: GOLD, login_id: 'gold', password: 'pass1234', rank: 'gold', external_ids: { smaregi: 'C-0001' } }];

beforeEach(async () => {
  await h.emulator.reset(emulatorConfig({ members: MEMBERS, external_keys: ['smaregi'] }));
});

const env = () => workerEnv(h, { LEASE_SECONDS: '60', REFUND_WAIT_SECONDS: '120' });
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const sqsEvent = (body: object, n: number): SQSEvent =>
  eventOf(sqsRecord(body, { id: `adj-msg-${n}`, groupId: 'smaregi:25', sentAt: h.clock(), sequence: n }));

describe('Smaregi: an adjustment refund booked but never finished (crash at refund:applied)', () => {
  it('is sent again when the sale is resolved again: its record ends debited, the member debited once', async () => {
    const standIn = await startSmaregiStandIn({ contractId: 'c1', clientId: 'app', clientSecret: 'app-secret' });
    try {
      const access = {
        smaregi: { contractId: 'c1', apiOrigin: standIn.url, idOrigin: standIn.url, clientId: 'app', clientSecret: 'app-secret' },
      };
      const handlerWith = (checkpoint?: Checkpoint) =>
        makeHandler(
          depsFromEnv(
            { ...env(), SMAREGI: JSON.stringify(access) },
            { clock: h.clock, logger: quiet, ...(checkpoint ? { checkpoint } : {}) },
          ),
        );
      const settings = SmaregiSettings.parse({ contractId: 'c1' });
      const thin = (action: string) => smaregiThinEvent('25', 'smaregi', settings, h.clock(), action);

      // ¥11,000 including ¥1,000 tax: 10,000 earns 500 (gold 5 %).
      standIn.putTransaction(smaregiTransaction('transaction-sale-tax-included.json', '25', { customerCode: 'C-0001' }) as never);
      expect((await handlerWith()(sqsEvent(thin('created'), 1))).batchItemFailures).toEqual([]);
      expect(await h.balance(GOLD)).toBe(500);

      // Edited down to ¥5,500 (5,000 earns 250): the refund adj-5000 takes back 250, and the worker dies once it is booked.
      const lowered = smaregiTransaction('transaction-sale-tax-included.json', '25', {
        customerCode: 'C-0001',
        subtotal: '5500',
        total: '5500',
        taxInclude: '500',
      });
      const details = lowered.details as Record<string, unknown>[];
      Object.assign(details[0] ?? {}, { unitDiscountedSum: '5500', taxIncludeProportional: '500' });
      standIn.putTransaction(lowered as never);
      const crashing = handlerWith((step) => {
        if (step === 'refund:applied') throw new Error('simulated crash');
      });
      expect((await crashing(sqsEvent(thin('created'), 2))).batchItemFailures).toEqual([{ itemIdentifier: 'adj-msg-2' }]);
      const ref = { source: 'smaregi', orderId: '25', refundId: 'adj-5000' };
      expect(await h.ledger.getRefund(ref)).toMatchObject({ state: 'pending' });
      expect(await h.balance(GOLD)).toBe(250);

      // The message comes back after the lease.
      h.expireLeases();
      expect((await handlerWith()(sqsEvent(thin('created'), 2))).batchItemFailures).toEqual([]);
      expect(await h.ledger.getRefund(ref)).toMatchObject({ state: 'done', outcome: 'debited', pointsDebited: 250 });
      expect((await handlerWith()(sqsEvent(thin('created'), 3))).batchItemFailures).toEqual([]);
      expect(await h.balance(GOLD)).toBe(250);
      const order = await h.ledger.getOrder({ source: 'smaregi', orderId: '25' });
      expect([order?.refundIds, Object.keys(order?.refunds ?? {})]).toEqual([['adj-5000'], ['adj-5000']]);
    } finally {
      await standIn.close();
    }
  });
});
