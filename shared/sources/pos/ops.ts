import type { SenderOps } from '../ops.js';

/** What operations need of the POS: no service of its own to watch; its stand-in is the signed sender of the local kit. */
export const POS_OPS = {
  alarms: [],
  dashboard: [],
  runbook: ['ReceiveWebhookErrors'],
  standIn: 'pos-sender',
  readme: 'POS',
} as const satisfies SenderOps;
