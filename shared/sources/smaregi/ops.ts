import { METRIC } from '../../metrics/index.js';
import type { SenderOps } from '../ops.js';

/** What operations need of Smaregi: its failed Platform API calls alarmed and drawn, its runbook, its stand-in. */
export const SMAREGI_OPS = {
  apiErrorsMetric: METRIC.smaregiApiErrors,
  alarms: [
    {
      id: 'SmaregiApiErrors',
      metric: METRIC.smaregiApiErrors,
      periodMinutes: 5,
      threshold: 5,
      evaluation: { periods: 3, datapoints: 2 },
      description:
        "The worker's reads of Smaregi transactions fail (Smaregi down or throttling, or the app's credentials or scopes refused): Smaregi sales wait.",
    },
  ],
  dashboard: [{ title: 'Smaregi: failed API reads of the worker', metric: METRIC.smaregiApiErrors, label: 'failed reads' }],
  runbook: ['SmaregiApiErrors', 'ReconcileSmaregiErrors', 'Reconcile is failing'],
  standIn: 'smaregi',
  readme: 'Smaregi',
} as const satisfies SenderOps;
