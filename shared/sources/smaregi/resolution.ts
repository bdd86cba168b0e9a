import { SMAREGI_ENV, smaregiFromEnv } from './from-env.js';
import { instrumentSmaregi } from './instrument.js';
import { METRIC } from '../../metrics/index.js';
import { processSmaregiState, type SmaregiStateClient } from './state.js';
import { SmaregiStateFrom, type SmaregiThinEvent } from './thin.js';
import { PurchaseEvent } from '../../events/index.js';
import type * as z from 'zod';
import type { SenderResolution } from '../resolution.js';

// The thin event's schema: built at first use, in the worker only (the intake checks the part alone).
let thinSchema: z.ZodType<SmaregiThinEvent> | undefined;

/**
 * Smaregi's thin event resolved: its transaction's current state, read from the Platform API, becomes the
 * purchase and refunds it earns (state.ts), run through the points protocol here; the answer is the first's.
 */
export const smaregiResolution: SenderResolution<SmaregiStateClient, SmaregiThinEvent> = {
  sender: 'smaregi',
  key: 'stateFrom',
  kind: 'smaregi_transaction',
  thinEvent: () => (thinSchema ??= PurchaseEvent.extend({ stateFrom: SmaregiStateFrom }) as unknown as z.ZodType<SmaregiThinEvent>),
  clientsFromEnv: (env, secrets) => smaregiFromEnv(env[SMAREGI_ENV], secrets),
  // The metric, not ops.ts: the worker's bundle carries no alarm texts (the registration test checks its alarm).
  apiErrorsMetric: METRIC.smaregiApiErrors,
  instrument: (clients, onFailure) => instrumentSmaregi(clients, onFailure),
  resolve: async (thin, { client, deps, run }) => ({ outcome: await processSmaregiState(deps, client, thin, run) }),
};
