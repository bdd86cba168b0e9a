/**
 * What operations need of each sender kind, declared by the sender (shared/sources/<kind>/ops.ts) and read
 * by the stack (infra/constructs/alarms.ts, dashboard.ts), the docs and the registration test: data only,
 * so the Lambda bundles never carry it.
 */

/** An alarm on one of the worker's metrics (the service dimension), built by the stack for a stage with this sender. */
export interface SenderAlarm {
  /** The alarm's id (its name after `loyalty-bridge-<stage>-`), also its section's heading in docs/runbook.md. */
  readonly id: string;
  /** The metric (shared/metrics/names.ts), summed. */
  readonly metric: string;
  readonly periodMinutes: number;
  /** The sum in one period at which the period breaches. */
  readonly threshold: number;
  readonly evaluation: { readonly periods: number; readonly datapoints: number };
  /** What the alarm means, for the operator reading it. */
  readonly description: string;
}

/** A graph of one of the worker's metrics (summed) on the stage's dashboard. */
export interface SenderWidget {
  readonly title: string;
  readonly metric: string;
  readonly label: string;
}

export interface SenderOps {
  /** Its alarms, built for every stage that configures a source of this kind. */
  readonly alarms: readonly SenderAlarm[];
  /** Its dashboard graphs (the audit row), drawn for every stage that configures a source of this kind. */
  readonly dashboard: readonly SenderWidget[];
  /** The headings of docs/runbook.md that say what to do about it (its alarms' and its own). */
  readonly runbook: readonly string[];
  /** The stand-in of the sender and its service that the local stack and the tests run (local/, `npm start`). */
  readonly standIn: string;
  /** Its section's heading in shared/sources/README.md (`## <heading>`). */
  readonly readme: string;
  /** The metric its own API's failed calls count in (the worker's), when it has an API the worker calls. */
  readonly apiErrorsMetric?: string;
}
