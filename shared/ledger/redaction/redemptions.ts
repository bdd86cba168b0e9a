import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DeleteCommand, GetCommand, isConditionFailure, PutCommand, scanKeyPrefix, UpdateCommand } from '../../dynamodb/index.js';
import { RedemptionRecord, redemptionCodeKey, redemptionKey, redemptionOrderKey } from '../redemptions.js';

/**
 * A privacy redaction of redemption records (docs/redemption.md, "What is stored"): a record is keyed by
 * source, shop customer and request, so it moves to a key naming no customer: `customerId` becomes
 * `redacted-<code>` (the code is ours, random, and names nobody) and the pointers from its code and its
 * order follow it. Amounts, state, member id, code and order stay: the books still balance, the sweep
 * still ends an unused code and gives its points back, a refund of the order still returns them, and
 * their markers (built from `customerId`) are new ones, never sent before.
 *
 * A record with a call in flight whose marker names the customer is left for now and reported busy: a
 * live lease, a pending redemption (its deduction's outcome is found by that marker), a return sent but
 * not recorded. The caller retries; the sweep or the next click finishes it meanwhile.
 */

export interface RedemptionRedactDeps {
  client: Pick<DynamoDBDocumentClient, 'send'>;
  tableName: string;
  clock: () => number;
}

export interface RedemptionRedaction {
  redemptions: number;
  /** `redemption <code>`: being processed now; try again later. */
  busy: string[];
}

const part = encodeURIComponent;
const LEASE_MS = 60_000;
const OWNER = 'privacy-redaction';

/** The customer's redemptions of `source` (a scan by key prefix: a privacy request is rare). */
export async function redactCustomerRedemptions(
  deps: RedemptionRedactDeps,
  input: { source: string; customerId: string },
): Promise<RedemptionRedaction> {
  return redactWhere(deps, `redemption#${part(input.source)}#${part(input.customerId)}#`, () => true);
}

/**
 * shop/redact: the redemptions of `source` made in this shop. A record names its shop (the App Proxy's
 * signed `shop`); one naming none (made before records named it) is the shop's only when `unattributed`.
 */
export async function redactShopRedemptions(
  deps: RedemptionRedactDeps,
  input: { source: string; shopDomain: string; unattributed: boolean },
): Promise<RedemptionRedaction> {
  return redactWhere(deps, `redemption#${part(input.source)}#`, (r) =>
    r.shopDomain === undefined ? input.unattributed : r.shopDomain === input.shopDomain,
  );
}

/** Whether a record still names its shop customer (a redacted one does not: a second pass skips it). */
export const isRedactedRedemption = (r: Pick<RedemptionRecord, 'customerId'>) => r.customerId.startsWith('redacted-');

async function redactWhere(
  deps: RedemptionRedactDeps,
  prefix: string,
  matches: (r: RedemptionRecord) => boolean,
): Promise<RedemptionRedaction> {
  const result: RedemptionRedaction = { redemptions: 0, busy: [] };
  for await (const item of scanKeyPrefix(deps.client, deps.tableName, prefix, { consistentRead: true })) {
    const parsed = RedemptionRecord.safeParse(item);
    if (!parsed.success || isRedactedRedemption(parsed.data) || !matches(parsed.data)) continue;
    if (await redactOne(deps, parsed.data)) result.redemptions += 1;
    else result.busy.push(`redemption ${parsed.data.code}`);
  }
  return result;
}

/** A call whose marker names the customer may be in flight: its outcome is found only under that marker. */
function inFlight(r: RedemptionRecord): boolean {
  return r.state === 'pending' || (r.returnSent === true && r.state !== 'returned');
}

/** Moves one record to its redacted key; false when it is busy (nothing changed then, or done on the retry). */
async function redactOne(deps: RedemptionRedactDeps, record: RedemptionRecord): Promise<boolean> {
  if (inFlight(record)) return false;
  const now = deps.clock();
  const table = { TableName: deps.tableName };
  // Our lease on the old record: nothing else changes it while it moves.
  try {
    await deps.client.send(
      new UpdateCommand({
        ...table,
        Key: { pk: record.pk },
        UpdateExpression: 'SET leaseOwner = :me, leaseUntil = :until',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(leaseOwner) OR leaseUntil < :now OR leaseOwner = :me)',
        ExpressionAttributeValues: { ':me': OWNER, ':until': now + LEASE_MS, ':now': now },
      }),
    );
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
  const held = (await deps.client.send(new GetCommand({ ...table, Key: { pk: record.pk }, ConsistentRead: true }))).Item;
  const current = held && RedemptionRecord.safeParse(held);
  if (!held || !current?.success || inFlight(current.data)) {
    await release(deps, record.pk);
    return false;
  }
  const customerId = `redacted-${current.data.code}`;
  const pk = redemptionKey(current.data.source, customerId, current.data.requestId);
  const { leaseOwner: _owner, leaseUntil: _until, ...kept } = held;
  // The sweep index's keys (an open code) come along: the sweep still ends it and gives its points back.
  await deps.client.send(new PutCommand({ ...table, Item: { ...kept, pk, customerId, redactedAt: new Date(now).toISOString() } }));
  await deps.client.send(
    new UpdateCommand({
      ...table,
      Key: { pk: redemptionCodeKey(current.data.code) },
      UpdateExpression: 'SET target = :pk',
      ExpressionAttributeValues: { ':pk': pk },
    }),
  );
  if (current.data.orderId !== undefined) await repointOrder(deps, current.data, record.pk, pk);
  await deps.client.send(
    new DeleteCommand({
      ...table,
      Key: { pk: record.pk },
      ConditionExpression: 'leaseOwner = :me',
      ExpressionAttributeValues: { ':me': OWNER },
    }),
  );
  return true;
}

async function repointOrder(deps: RedemptionRedactDeps, record: RedemptionRecord, from: string, to: string): Promise<void> {
  const Key = { pk: redemptionOrderKey(record.source, record.orderId ?? '') };
  // Two writes (DynamoDB refuses ADD and DELETE of one set in one update): the new key first, so the order always finds it.
  await deps.client.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key,
      UpdateExpression: 'ADD targets :to',
      ExpressionAttributeValues: { ':to': new Set([to]) },
    }),
  );
  await deps.client.send(
    new UpdateCommand({
      TableName: deps.tableName,
      Key,
      UpdateExpression: 'DELETE targets :from',
      ExpressionAttributeValues: { ':from': new Set([from]) },
    }),
  );
}

async function release(deps: RedemptionRedactDeps, pk: string): Promise<void> {
  await deps.client
    .send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: { pk },
        UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
        ConditionExpression: 'leaseOwner = :me',
        ExpressionAttributeValues: { ':me': OWNER },
      }),
    )
    .catch((e: unknown) => {
      if (!isConditionFailure(e)) throw e;
    });
}
