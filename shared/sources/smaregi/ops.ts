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
    {
      id: 'UnlinkedReturns',
      metric: METRIC.unlinkedReturns,
      periodMinutes: 60,
      threshold: 1,
      evaluation: { periods: 1, datapoints: 1 },
      description:
        "A till's plain return (返品販売) of a member named no sale: its points stay with the member until an operator applies it to its sale (npm run returns -- list, apply, dismiss).",
    },
    {
      id: 'TillSpendShortfalls',
      metric: METRIC.tillSpendShortfalls,
      periodMinutes: 60,
      threshold: 1,
      evaluation: { periods: 1, datapoints: 1 },
      description:
        'A member spent more points at the till than the membership service held (tillPoints membership): the shortfall is recorded, the shop settles it with the member (npm run redemptions -- shortfalls).',
    },
  ],
  dashboard: [
    { title: 'Smaregi: failed API reads of the worker', metric: METRIC.smaregiApiErrors, label: 'failed reads' },
    { title: 'Smaregi: plain returns naming no sale', metric: METRIC.unlinkedReturns, label: 'returns kept' },
    { title: 'Smaregi: till spends cut short by the balance', metric: METRIC.tillSpendShortfalls, label: 'shortfalls' },
  ],
  runbook: ['SmaregiApiErrors', 'UnlinkedReturns', 'TillSpendShortfalls', 'ReconcileSmaregiErrors', 'Reconcile is failing'],
  standIn: 'smaregi',
  readme: 'Smaregi',
} as const satisfies SenderOps;
