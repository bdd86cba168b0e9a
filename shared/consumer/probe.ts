import type { PointsApi } from '../points/index.js';
import type { UpstreamProbe } from './recovery.js';

/** An external id no customer has: the service answers "not found" when it is up (any answer will do). */
const PROBE_EXTERNAL_ID = 'loyalty-bridge-recovery-probe';

/** The cheapest call the worker makes anyway (one GET, no effect), as a health probe. */
export function openApiProbe(openapi: Pick<PointsApi, 'getMemberByExternalId'>, externalKey: string): UpstreamProbe {
  return async () => {
    await openapi.getMemberByExternalId(externalKey, PROBE_EXTERNAL_ID);
  };
}
