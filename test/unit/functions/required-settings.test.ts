import { describe, expect, it } from 'vitest';
import * as auditLedger from '../../../functions/audit-ledger.js';
import * as exportPointsReport from '../../../functions/export-points-report.js';
import * as processEvents from '../../../functions/process-events.js';
import * as receiveWebhook from '../../../functions/receive-webhook.js';
import * as reconcileShopify from '../../../functions/reconcile-shopify.js';
import { ConfigurationError } from '../../../shared/config/index.js';

/** What building a function's dependencies throws with `env`, or undefined when nothing is thrown. */
function thrownBy(build: () => unknown): unknown {
  try {
    build();
    return undefined;
  } catch (e) {
    return e;
  }
}

function expectMissing(error: unknown, variable: string): void {
  expect(error).toBeInstanceOf(ConfigurationError);
  expect(error).toMatchObject({ kind: 'missing_setting' });
  expect((error as Error).message).toMatch(new RegExp(`^${variable} is not set`));
}

describe('a function started without a required table or queue', () => {
  it('process-events refuses a missing LEDGER_TABLE with the typed missing_setting error', () => {
    expectMissing(
      thrownBy(() => processEvents.depsFromEnv({})),
      'LEDGER_TABLE',
    );
  });

  it('audit-ledger refuses a missing LEDGER_TABLE with the typed missing_setting error', () => {
    expectMissing(
      thrownBy(() => auditLedger.depsFromEnv({})),
      'LEDGER_TABLE',
    );
  });

  it('reconcile-shopify refuses a missing LEDGER_TABLE with the typed missing_setting error', () => {
    expectMissing(
      thrownBy(() => reconcileShopify.depsFromEnv({ QUEUE_URL: 'https://sqs.example/q.fifo' })),
      'LEDGER_TABLE',
    );
  });

  it('reconcile-shopify refuses a missing QUEUE_URL with the typed missing_setting error', () => {
    expectMissing(
      thrownBy(() => reconcileShopify.depsFromEnv({ LEDGER_TABLE: 'ledger' })),
      'QUEUE_URL',
    );
  });

  it('receive-webhook refuses a missing QUEUE_URL with the typed missing_setting error', () => {
    expectMissing(
      thrownBy(() => receiveWebhook.depsFromEnv({})),
      'QUEUE_URL',
    );
  });

  it('export-points-report refuses a missing POINTS_REPORT_BUCKET with the typed missing_setting error', () => {
    expectMissing(
      thrownBy(() => exportPointsReport.depsFromEnv({ LEDGER_TABLE: 'ledger' })),
      'POINTS_REPORT_BUCKET',
    );
  });

  it('a blank value counts as missing', () => {
    expectMissing(
      thrownBy(() => auditLedger.depsFromEnv({ LEDGER_TABLE: '  ' })),
      'LEDGER_TABLE',
    );
  });
});
