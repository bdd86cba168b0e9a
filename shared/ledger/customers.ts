import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
// Through shared/dynamodb (require, not an ESM import of the SDK): the worker's cold start stays light.
import { GetCommand, isConditionFailure, PutCommand, UpdateCommand } from '../dynamodb/index.js';
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { lazyObject, lazySchema } from '../schema/index.js';
import { leaseSendWindow } from './lease-window.js';

/**
 * The customer record: one item per shop customer in the ledger table (`customer#<source>#<id>`),
 * the lease and outcome of enrolling it. The register endpoint has no idempotency key, so, as for
 * points, one conditional write claims the work and whoever comes next looks before calling again.
 */

export const EnrolOutcomeKind = lazySchema(() =>
  z.enum([
    /** Registered by us with the external id. */
    'enrolled',
    /** A member already had this external id (linked before, or registered by a lost attempt of ours). */
    'already_member',
    /** The service refused the registration for a reason that is not "already taken". */
    'enrol_rejected',
  ]),
);
export type EnrolOutcomeKind = z.infer<typeof EnrolOutcomeKind>;

export const CustomerRecord = lazyObject(z.object, () => ({
  pk: z.string(),
  kind: z.literal('customer'),
  source: z.string(),
  customerId: z.string(),
  externalKey: z.string(),
  state: z.enum(['pending', 'done']),
  leaseOwner: z.string().optional(),
  leaseUntil: z.number().optional(),
  /** A register call may have run without our learning it: look the member up before calling again. */
  needsReconcile: z.boolean().optional(),
  attempts: z.number().int().nonnegative().default(0),
  lastError: z.string().optional(),
  outcome: EnrolOutcomeKind.optional(),
  reason: z.string().optional(),
  memberId: z.string().optional(),
  /** The shop whose delivery made the record (X-Shopify-Shop-Domain): shop/redact of another shop leaves it. */
  shopDomain: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().optional(),
  ttl: z.number().optional(),
}));
export type CustomerRecord = z.infer<typeof CustomerRecord>;

export interface CustomerRef {
  source: string;
  customerId: string;
}

const part = encodeURIComponent;
export const customerKey = (ref: CustomerRef) => `customer#${part(ref.source)}#${part(ref.customerId)}`;

/**
 * The tombstone a customers/redact leaves: keyed by a digest of the customer id (the id itself is what
 * the redaction removes), so a replayed customers/create (Shopify signs no timestamp) enrols nobody.
 * Kept as long as the ledger's records: a replay after that is older than the replay window (its
 * created_at), which intake answers too_old.
 */
export const redactedCustomerKey = (ref: CustomerRef) =>
  `redacted#${part(ref.source)}#${createHash('sha256').update(ref.customerId, 'utf8').digest('hex')}`;

/** Whether an erasure left its tombstone for this customer (consistent: an erase just done is seen). */
export async function isCustomerRedacted(
  client: Pick<DynamoDBDocumentClient, 'send'>,
  tableName: string,
  ref: CustomerRef,
): Promise<boolean> {
  const out = await client.send(new GetCommand({ TableName: tableName, Key: { pk: redactedCustomerKey(ref) }, ConsistentRead: true }));
  return out.Item !== undefined;
}

/** `window`: the time the lease taken leaves to send the enrolment's call (lease-window.ts). */
export type CustomerClaim =
  | { ok: true; previous: CustomerRecord | undefined; window: { leftMs(): number } }
  | { ok: false; current: CustomerRecord | undefined };

export interface CustomerRecords {
  get(ref: CustomerRef): Promise<CustomerRecord | undefined>;
  /** The enrolment's lease: absent, or pending with a free lease. */
  claim(ref: CustomerRef & { externalKey: string; owner: string; shopDomain?: string | undefined }): Promise<CustomerClaim>;
  /** Whether a customers/redact erased this customer (its tombstone is there). */
  isRedacted(ref: CustomerRef): Promise<boolean>;
  /** Leaves the tombstone of a customers/redact (idempotent). */
  markRedacted(ref: CustomerRef): Promise<void>;
  /** Ends the enrolment (owner must hold the lease); false when it no longer does. */
  finish(ref: CustomerRef, owner: string, result: { outcome: EnrolOutcomeKind; memberId?: string; reason?: string }): Promise<boolean>;
  /** Ends an attempt without a result; keepLease when the call's outcome is unknown (let the lease run out). */
  release(ref: CustomerRef, owner: string, opts: { lastError: string; needsReconcile?: boolean; keepLease?: boolean }): Promise<void>;
}

export interface CustomerRecordsOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: () => number;
  leaseSeconds: number;
  ttlDays: number;
}

/** `state` and `ttl` are DynamoDB reserved words; a name the expressions do not use is refused, so only those used. */
function namesUsedIn(expression: string): { ExpressionAttributeNames?: Record<string, string> } {
  const names = Object.fromEntries(['state', 'ttl'].filter((n) => expression.includes(`#${n}`)).map((n) => [`#${n}`, n]));
  return Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {};
}

/** One customer record's item: a consistent read, and a conditional update (false when its condition failed). */
interface CustomerTable {
  get(ref: CustomerRef): Promise<CustomerRecord | undefined>;
  update(ref: CustomerRef, input: { set: string; remove?: string; condition: string; values: Record<string, unknown> }): Promise<boolean>;
}

function customerTable({ client, tableName }: CustomerRecordsOptions): CustomerTable {
  const parse = (item: Record<string, unknown> | undefined) => (item ? CustomerRecord.parse(item) : undefined);
  return {
    async get(ref) {
      const out = await client.send(new GetCommand({ TableName: tableName, Key: { pk: customerKey(ref) }, ConsistentRead: true }));
      return parse(out.Item);
    },
    async update(ref, input) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: customerKey(ref) },
            UpdateExpression: `SET ${input.set}${input.remove ? ` REMOVE ${input.remove}` : ''}`,
            ConditionExpression: input.condition,
            ...namesUsedIn(`${input.set} ${input.condition}`),
            ExpressionAttributeValues: input.values,
          }),
        );
        return true;
      } catch (e) {
        if (isConditionFailure(e)) return false;
        throw e;
      }
    },
  };
}

/** The enrolment's lease: a new record, or a pending one whose lease ran out taken over. */
async function claimCustomer(
  options: CustomerRecordsOptions,
  { get, update }: CustomerTable,
  ref: Parameters<CustomerRecords['claim']>[0],
): Promise<CustomerClaim> {
  const { client, tableName, clock } = options;
  const iso = (ms: number) => new Date(ms).toISOString();
  const now = clock();
  const window = leaseSendWindow(clock, options.leaseSeconds * 1000, now);
  const item = {
    pk: customerKey(ref),
    kind: 'customer',
    source: ref.source,
    customerId: ref.customerId,
    externalKey: ref.externalKey,
    ...(ref.shopDomain ? { shopDomain: ref.shopDomain } : {}),
    state: 'pending',
    leaseOwner: ref.owner,
    leaseUntil: now + options.leaseSeconds * 1000,
    attempts: 1,
    createdAt: iso(now),
    updatedAt: iso(now),
  };
  try {
    await client.send(new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
    return { ok: true, previous: undefined, window };
  } catch (e) {
    if (!isConditionFailure(e)) throw e;
  }
  const previous = await get(ref);
  if (!previous || previous.state === 'done' || (previous.leaseUntil ?? 0) >= now) return { ok: false, current: previous };
  // Taken over only from the attempt we read (its lease, its attempt count): two takers cannot both win.
  const taken = await update(ref, {
    set: 'leaseOwner = :owner, leaseUntil = :until, attempts = attempts + :one, updatedAt = :now',
    condition: '#state = :pending AND attempts = :attempts AND (attribute_not_exists(leaseUntil) OR leaseUntil < :nowMs)',
    values: {
      ':owner': ref.owner,
      ':until': now + options.leaseSeconds * 1000,
      ':one': 1,
      ':now': iso(now),
      ':pending': 'pending',
      ':attempts': previous.attempts,
      ':nowMs': now,
    },
  });
  return taken ? { ok: true, previous, window } : { ok: false, current: await get(ref) };
}

export function createCustomerRecords(options: CustomerRecordsOptions): CustomerRecords {
  const { client, tableName, clock } = options;
  const iso = (ms: number) => new Date(ms).toISOString();
  const table = customerTable(options);
  const { get, update } = table;
  return {
    get,
    isRedacted: (ref) => isCustomerRedacted(client, tableName, ref),
    async markRedacted(ref) {
      const now = clock();
      const item = {
        pk: redactedCustomerKey(ref),
        kind: 'redacted_customer',
        redactedAt: iso(now),
        ttl: Math.floor(now / 1000) + options.ttlDays * 86_400,
      };
      await client.send(new PutCommand({ TableName: tableName, Item: item }));
    },
    claim: (ref) => claimCustomer(options, table, ref),
    async finish(ref, owner, result) {
      const now = clock();
      const values: Record<string, unknown> = {
        ':done': 'done',
        ':outcome': result.outcome,
        ':now': iso(now),
        ':ttl': Math.floor(now / 1000) + options.ttlDays * 86_400,
        ':owner': owner,
      };
      let set = '#state = :done, outcome = :outcome, updatedAt = :now, finishedAt = :now, #ttl = :ttl';
      if (result.memberId !== undefined) {
        set += ', memberId = :member';
        values[':member'] = result.memberId;
      }
      if (result.reason !== undefined) {
        set += ', reason = :reason';
        values[':reason'] = result.reason.slice(0, 500);
      }
      return update(ref, {
        set,
        remove: 'leaseOwner, leaseUntil, needsReconcile, lastError',
        condition: 'leaseOwner = :owner',
        values,
      });
    },
    async release(ref, owner, opts) {
      const values: Record<string, unknown> = { ':owner': owner, ':err': opts.lastError.slice(0, 500), ':now': iso(clock()) };
      let set = 'lastError = :err, updatedAt = :now';
      if (opts.needsReconcile) {
        set += ', needsReconcile = :yes';
        values[':yes'] = true;
      }
      await update(ref, {
        set,
        ...(opts.keepLease ? {} : { remove: 'leaseOwner, leaseUntil' }),
        condition: 'leaseOwner = :owner',
        values,
      });
    },
  };
}
