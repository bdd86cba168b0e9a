import { afterAll, beforeAll } from 'vitest';
import { createLedger, type Ledger, type LedgerOptions } from '../../shared/ledger/index.js';
import { startDynalite, type LocalDynamo } from '../../kit/dynalite.js';

/**
 * Gives the test file a ledger on its own dynalite (started before its tests, stopped after), through
 * `ready`, which runs once both are up.
 */
export function withLocalLedger(
  options: Pick<LedgerOptions, 'clock' | 'leaseSeconds' | 'ttlDays'>,
  ready: (made: { ledger: Ledger; dynamo: LocalDynamo }) => void,
): void {
  let dynamo: LocalDynamo | undefined;
  beforeAll(async () => {
    dynamo = await startDynalite();
    ready({ ledger: createLedger({ client: dynamo.documentClient, tableName: dynamo.tableName, ...options }), dynamo });
  });
  afterAll(async () => {
    await dynamo?.stop();
  });
}
