import { beforeAll, describe, expect, it } from 'vitest';
import { SmaregiSettings, smaregiThinEvent } from '../../../../shared/sources/index.js';
import { createWorker, workerDepsFromEnv } from '../../../../shared/worker/index.js';
import { smaregiTillTransaction } from '../../../../kit/smaregi.js';
import { useHarness, workerEnv } from '../points/harness.js';
import { sqsEvent, sqsRecord } from '../../../support/sqs-record.js';
import { useSmaregiStandIn } from '../../../support/smaregi.js';

/**
 * The worker's `days` ticker (shared/worker/earn-due.ts) made from the stage's environment, with a Smaregi
 * source earning 14 days after its sales under `tillPoints: membership` and the worker's Smaregi access
 * (SMAREGI) pointed at the stand-in: the day's credit reaches the till's customer record. The gold member
 * (5 %) is the till's customer 1, code `cust-gold`.
 */
const h = useHarness();
const till = useSmaregiStandIn();
const DAY_MS = 86_400_000;
beforeAll(() => {
  till.standIn.putCustomer({ customerId: '1', customerCode: 'cust-gold', point: '100000' } as never);
});

const SOURCE = { contractId: 'c1', externalKey: 'shopify', earnAfter: { days: 14 }, tillPoints: 'membership' };
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const metrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };
const worker = () =>
  createWorker(
    workerDepsFromEnv(
      workerEnv(h, {
        SOURCES_CONFIG: JSON.stringify({ smaregi: SOURCE }),
        SMAREGI: JSON.stringify({
          smaregi: {
            contractId: 'c1',
            apiOrigin: till.standIn.url,
            idOrigin: till.standIn.url,
            clientId: 'app',
            clientSecret: 'app-secret',
          },
        }),
      }),
      { logger: quiet, metrics, clock: h.clock },
    ),
  );

describe('the worker’s days ticker under tillPoints membership', () => {
  it('adds a till sale’s 500 points to the till record at its day, once over two ticks', async () => {
    const start = Number(till.standIn.customerPoint('1'));
    const at = new Date(h.clock()).toISOString();
    till.standIn.putTransaction({ ...smaregiTillTransaction('8101', { productId: 'P-8101', at }), customerCode: 'cust-gold' } as never);
    const thin = smaregiThinEvent('8101', 'smaregi', SmaregiSettings.parse(SOURCE), h.clock(), 'created');
    expect((await worker().handle(sqsEvent(sqsRecord(thin, { id: 'm-8101', groupId: 'g', sentAt: h.clock() })))).batchItemFailures).toEqual(
      [],
    );
    h.clock.advance(15 * DAY_MS);
    const ticks = [await worker().earnDue(), await worker().earnDue()];
    expect([ticks.map((t) => t.due), Number(till.standIn.customerPoint('1')) - start]).toEqual([[1, 0], 500]);
  }, 120_000);
});
