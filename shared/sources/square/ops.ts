import type { SenderOps } from '../ops.js';

/**
 * What operations need of Square: no alarm of its own (a failing Orders API read waits as a configuration
 * or upstream error, counted with the outcomes); its stand-in serves the Orders API.
 */
export const SQUARE_OPS = {
  alarms: [],
  dashboard: [],
  runbook: ['A secret is rotated'],
  standIn: 'square-orders',
  readme: 'Square',
} as const satisfies SenderOps;
