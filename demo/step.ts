import type { WebhookRequest } from '../kit/webhooks/index.js';

/** One delivery of the demo's script: for which customer, what it sends, and what it must do. */

export interface Customer {
  label: string;
  memberId: string | null;
  externalKey: string;
  externalId: string;
  rate: string | null;
}

export type Expected =
  | { kind: 'credited'; points: number }
  | { kind: 'debited'; points: number }
  | { kind: 'dropped_by_queue' }
  | { kind: 'duplicate' }
  | { kind: 'customer_not_found' }
  | { kind: 'ignored' }
  | { kind: 'skipped' }
  | { kind: 'rejected'; status: number }
  /** An App Proxy link request answered 200 (`changed` as expected), moving the balance by `points`. */
  | { kind: 'linked'; changed: boolean; points: number }
  /** The step's record ends `outcome` and the balance moves by `points` (signed): a sale that earns and spends. */
  | { kind: 'moved'; outcome: string; points: number };

export interface Step {
  customer: Customer;
  label: string;
  request: WebhookRequest;
  record: { source: string; orderId: string; refundId?: string };
  expected: Expected;
  /** Puts the sender-side state in place first (a Smaregi transaction in its stand-in). */
  prepare?: () => Promise<void>;
  /** Sends something other than `request` as a webhook (the App Proxy's GET of a link request). */
  send?: () => Promise<{ status: number; body: string }>;
}
