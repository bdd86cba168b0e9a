import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand } from '../dynamodb/index.js';

/**
 * The ledger table's key prefixes (index.ts lists their stores), and which of them each function reads
 * and writes item by item: its IAM grant is limited to them with `dynamodb:LeadingKeys` (infra), and
 * the same list guards its document client in tests and under `npm start` (guardLeadingKeys), so a key
 * the code starts to use is found by a test, never first by AccessDenied in production. Query and Scan
 * are granted apart (LeadingKeys does not narrow them).
 */
export const LEDGER_KEY_PREFIX = {
  order: 'order#',
  refund: 'refund#',
  linkMark: 'linked#',
  customer: 'customer#',
  redactedCustomer: 'redacted#',
  bonus: 'bonus#',
  redemption: 'redemption#',
  redemptionCode: 'redemption-code#',
  redemptionOrder: 'redemption-order#',
  reversal: 'reversal#',
  privacy: 'privacy#',
  budget: 'budget#',
  // The activity record: per order (`activity#order#…`), the breaker's transitions, the run summaries.
  activity: 'activity#',
  activityRuns: 'activity#runs',
  control: 'control#',
  tillReturn: 'till-return#',
  tillSale: 'till-sale#',
  tillMirror: 'till-mirror#',
} as const;

const K = LEDGER_KEY_PREFIX;

/**
 * Per function, the keys its own ledger items have (its upstream budget's `budget#` and the run
 * record's `activity#runs` are granted by their own helpers, so they are not repeated here).
 * - shopify-app-proxy: a redemption is started (its record and its code's pointer), read, claimed
 *   and updated (shared/redemption/redeem.ts, protocol.ts; shared/ledger/redemptions.ts `start`).
 * - sweep-redemptions: claims, reads and updates redemptions; a code found used links its order.
 * - shopify-app-proxy, when its source earns later (earnAfter): reads the provisional orders it lists.
 * - reconcile-shopify, reconcile-smaregi: whether the ledger has seen an order or refund (GetItem).
 * - process-events (the worker): every record of the protocol and of the events it handles, but never
 *   the audit's reversal records (only the audit writes or reads them item by item).
 * - audit-ledger: reads any item (GetItem, Scan: a read-only grant on the table) and writes its
 *   reversal records only.
 */
export const FUNCTION_LEDGER_KEYS = {
  shopifyAppProxy: [K.redemption, K.redemptionCode],
  // Read only, and only in a stage whose Shopify source earns after payment: the customer's provisional
  // orders on the points page (found through the customer index, then each read).
  shopifyAppProxyProvisional: [K.order],
  sweepRedemptions: [K.redemption, K.redemptionCode, K.redemptionOrder],
  reconcile: [K.order, K.refund],
  // Orders, refunds, bonuses (campaigns), link marks, customer records and erasure tombstones (enrolment,
  // linking, privacy), redemptions followed through their orders, privacy requests, the activity record
  // and the planned pause (`control#pulling`), till returns and sales, till mirror steps, the budget.
  worker: [
    K.order,
    K.refund,
    K.bonus,
    K.linkMark,
    K.customer,
    K.redactedCustomer,
    K.redemption,
    K.redemptionCode,
    K.redemptionOrder,
    K.privacy,
    K.activity,
    K.control,
    K.tillReturn,
    K.tillSale,
    K.tillMirror,
    K.budget,
  ],
  // Its writes (PutItem, UpdateItem); its reads are the whole table (what it audits).
  auditWrites: [K.reversal],
  // The App Proxy, the sweep and the audit under a Smaregi source's `tillPoints: membership`: the till mirror steps (web legs, reversals, settling).
  tillMirror: [K.tillMirror],
} as const satisfies Record<string, readonly string[]>;

/** The IAM form: each prefix followed by `*` (`ForAllValues:StringLike` on `dynamodb:LeadingKeys`). */
export const leadingKeyPatterns = (prefixes: readonly string[]): string[] => prefixes.map((p) => `${p}*`);

const keyOf = (input: Record<string, unknown>): unknown =>
  (input.Key as { pk?: unknown } | undefined)?.pk ?? (input.Item as { pk?: unknown } | undefined)?.pk;

/** Where a guard applies, beyond its prefixes. */
export interface LeadingKeyGuardOptions {
  /** Only commands on this table are checked (a client may also serve another table: the worker's quarantine). */
  tableName?: string;
  /** Reads by key (GetItem) pass on any key: a function granted GetItem on the whole table (the audit). */
  readAnyKey?: boolean;
}

/**
 * The client, refusing any item command whose key has none of the prefixes, as IAM would with the
 * function's grant (a test harness, or the local stack, runs the real code through it).
 */
export function guardLeadingKeys<C extends Pick<DynamoDBDocumentClient, 'send'>>(
  client: C,
  prefixes: readonly string[],
  options: LeadingKeyGuardOptions = {},
): C {
  const send = client.send.bind(client) as (command: { input: Record<string, unknown> }, ...rest: unknown[]) => Promise<unknown>;
  const guarded = (command: { input: Record<string, unknown> }, ...rest: unknown[]) => {
    const input = command.input ?? {};
    const key = keyOf(input);
    const checked =
      key !== undefined &&
      (options.tableName === undefined || input.TableName === options.tableName) &&
      !(options.readAnyKey && command instanceof GetCommand);
    if (checked && !prefixes.some((p) => String(key).startsWith(p))) {
      return Promise.reject(
        new Error(`AccessDenied: key ${String(key).slice(0, 40)} is outside this function's prefixes (${prefixes.join(', ')})`),
      );
    }
    return send(command, ...rest);
  };
  return new Proxy(client, { get: (target, name, receiver) => (name === 'send' ? guarded : Reflect.get(target, name, receiver)) });
}
