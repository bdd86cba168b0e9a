/**
 * Shared setup for the audit's integration tests: each test its own ledger table (the audit scans a whole
 * table), a processor and the audit built on it, against the processing harness's emulator and dynalite.
 */
import { beforeEach, expect } from 'vitest';
import { auditLedger, type AuditResult, reversalDepsOf, type ReversalStep, scanLedger } from '../../../../shared/audit/index.js';
import { ProcessingSettings } from '../../../../shared/config/processing-settings.js';
import type { PointsEvent } from '../../../../shared/events/index.js';
import { createLedger, createLedgerTable, type Ledger } from '../../../../shared/ledger/index.js';
import { createProcessor } from '../../../../shared/points/index.js';
import { IN_DOUBT_SECONDS, LEASE_SECONDS, type Harness } from '../points/harness.js';

type Policy = 'clamp' | 'park';

export interface AuditTable {
  readonly ledger: Ledger;
  readonly tableName: string;
  settings(policy?: Policy): ProcessingSettings;
  /** Processes each event in turn; each must be acknowledged. */
  processAll(...events: PointsEvent[]): Promise<void>;
  /** One audit run over the whole table; `checkpoint` may throw to kill the run at a step. */
  audit(options?: { policy?: Policy; checkpoint?: (step: ReversalStep) => void }): Promise<AuditResult>;
}

export function useAuditTable(h: Harness, prefix: string): AuditTable {
  let ledger: Ledger;
  let tableName: string;
  let tables = 0;
  beforeEach(async () => {
    tableName = `${prefix}-${process.pid}-${++tables}`;
    await createLedgerTable(h.dynamo.client, tableName);
    ledger = createLedger({ client: h.dynamo.documentClient, tableName, clock: h.clock, leaseSeconds: LEASE_SECONDS });
  });
  const settings = (policy: Policy = 'clamp') =>
    ProcessingSettings.parse({ leaseSeconds: LEASE_SECONDS, inDoubtSeconds: IN_DOUBT_SECONDS, insufficientPointsPolicy: policy });
  return {
    get ledger() {
      return ledger;
    },
    get tableName() {
      return tableName;
    },
    settings,
    async processAll(...events) {
      const processor = createProcessor({ ledger, openapi: h.api, clock: h.clock, settings: settings() });
      for (const e of events) expect((await processor.process(e, { receiveCount: 1 })).action).toBe('ack');
    },
    async audit(options = {}) {
      const records = await scanLedger(h.dynamo.documentClient, tableName, {}, undefined, { redemptionMembers: true });
      const reversal = reversalDepsOf({
        client: h.dynamo.documentClient,
        tableName,
        clock: h.clock,
        openapi: h.api,
        processing: settings(options.policy),
        checkpoint: options.checkpoint,
      });
      return auditLedger(records, { ledger, openapi: h.api, reversal });
    },
  };
}
