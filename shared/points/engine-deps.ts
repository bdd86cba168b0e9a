import { LEASE_MARGIN_SECONDS } from '../config/index.js';
import type { ProcessorDeps } from './deps.js';
import type { EngineDeps } from './engine/index.js';

/** The protocol engine as processing runs it: its Open API, its clock, the stage's horizon and lease. */
export function engineOf(deps: Pick<ProcessorDeps, 'openapi' | 'clock' | 'settings' | 'ledger'>): EngineDeps {
  return {
    api: deps.openapi,
    clock: deps.clock,
    horizon: {
      inDoubtMs: deps.settings.inDoubtSeconds * 1000,
      marginMs: LEASE_MARGIN_SECONDS * 1000,
      leaseMs: deps.ledger.leaseMs,
    },
  };
}
