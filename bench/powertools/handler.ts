import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context } from 'aws-lambda';
import type { PointsApi } from '../../shared/points/index.js';

/**
 * The purchase and refund handlers a careful AWS TypeScript team writes with Powertools idempotency 2.x, for
 * the side-by-side run: `makeIdempotent` around the work, `DynamoDBPersistenceLayer` on the same DynamoDB,
 * the idempotency key = source + order id (purchase) or source + refund id (refund) by JMESPath, each with
 * its own key prefix in the one table, the Lambda context registered so an attempt that
 * dies leaves an in-progress record that lapses with the invocation's timeout, and the same Open API
 * client as the bridge (its timeouts, its retries of GETs). Nothing of the bridge's ledger: no lease of
 * its own, no marker lookup in the point history before re-granting.
 */

export interface PowertoolsPurchase {
  /** Which delivery of the message this is (SQS's ApproximateReceiveCount): 1 for the first. */
  attempt?: number;
  source: string;
  orderId: string;
  externalId: string;
  amount: number;
  title: string;
}

/** A refund as the team's queue carries it: which order, which refund, the yen given back and the order's yen. */
export interface PowertoolsRefund {
  attempt?: number;
  source: string;
  orderId: string;
  refundId: string;
  externalId: string;
  amount: number;
  orderAmount: number;
  title: string;
}

/** Between which lines a crash is injected: after the customer lookup (before the grant), after the grant. */
export type PowertoolsStep = 'customer' | 'granted';

export interface PowertoolsHandlerDeps {
  openapi: Pick<PointsApi, 'getMemberByExternalId' | 'calculatePoints' | 'listPoints' | 'grantPoints'>;
  client: DynamoDBClient;
  tableName: string;
  /** A throw or a never-settling promise here acts as the process dying at that line. */
  checkpoint?: (step: PowertoolsStep) => Promise<void>;
  /**
   * The check a careful team adds by hand: on every attempt after the first, look for its own remark in
   * the member's point history (the first page of 100, as the refund handler reads it) before granting.
   */
  historyCheck?: boolean;
}

/** The history check: the entry with `remarks` and the sign wanted, on the first page, if there. */
async function alreadyGranted(deps: PowertoolsHandlerDeps, memberId: string, remarks: string, sign: 1 | -1) {
  const history = await deps.openapi.listPoints(memberId, { page: 1, perPage: 100 });
  return history.points.find((p) => p.remarks === remarks && Math.sign(p.point) === sign);
}

export type PowertoolsHandler = (event: PowertoolsPurchase, context: Context) => Promise<{ memberId: string; points: number }>;
export type PowertoolsRefundHandler = (event: PowertoolsRefund, context: Context) => Promise<{ memberId: string; debited: number }>;

const config = (eventKeyJmesPath: string) =>
  new IdempotencyConfig({ eventKeyJmesPath, throwOnNoIdempotencyKey: true, expiresAfterSeconds: 3600 });

export function makePowertoolsHandler(deps: PowertoolsHandlerDeps): PowertoolsHandler {
  const checkpoint = deps.checkpoint ?? (async () => undefined);
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: deps.tableName, awsSdkV3Client: deps.client });
  return makeIdempotent(
    async (event: PowertoolsPurchase, _context: Context) => {
      const member = await deps.openapi.getMemberByExternalId('shopify', event.externalId);
      await checkpoint('customer');
      const remarks = orderRemark(event.source, event.orderId);
      if (deps.historyCheck && (event.attempt ?? 1) > 1) {
        const found = await alreadyGranted(deps, member.id, remarks, 1);
        if (found) return { memberId: member.id, points: found.point };
      }
      // The order id goes into remarks (the history check and the refund find the credit by it).
      const after = await deps.openapi.calculatePoints(member.id, { amount: event.amount, title: event.title, remarks });
      await checkpoint('granted');
      return { memberId: member.id, points: after.point };
    },
    { persistenceStore, config: config('[source, orderId]'), keyPrefix: 'purchase' },
  );
}

/** The remark the purchase handler writes on its grant; the refund handler finds the credit by it. */
const orderRemark = (source: string, orderId: string) => `${source}:order:${orderId}`;

/**
 * The refund: a negative grant of the refund's share of what the order earned, floor(credit x refunded /
 * order amount). The credit is read from the point history by the purchase's remark (the team keeps no
 * ledger; the bridge's first refund of an order reads the history once too). A partial refund only (the
 * bench's refunds are one per order): a second refund of an order would need the debits so far as well.
 */
export function makePowertoolsRefundHandler(deps: PowertoolsHandlerDeps): PowertoolsRefundHandler {
  const checkpoint = deps.checkpoint ?? (async () => undefined);
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: deps.tableName, awsSdkV3Client: deps.client });
  return makeIdempotent(
    async (event: PowertoolsRefund, _context: Context) => {
      const member = await deps.openapi.getMemberByExternalId('shopify', event.externalId);
      const history = await deps.openapi.listPoints(member.id, { page: 1, perPage: 100 });
      const credit = history.points.find((p) => p.remarks === orderRemark(event.source, event.orderId) && p.point > 0);
      if (!credit) throw new Error(`refund ${event.refundId}: no credit of order ${event.orderId} in the history yet`);
      const debit = Number((BigInt(credit.point) * BigInt(event.amount)) / BigInt(event.orderAmount));
      await checkpoint('customer');
      const remarks = `${event.source}:refund:${event.refundId}`;
      if (deps.historyCheck && (event.attempt ?? 1) > 1 && (await alreadyGranted(deps, member.id, remarks, -1))) {
        return { memberId: member.id, debited: debit };
      }
      if (debit > 0) await deps.openapi.grantPoints(member.id, { point: -debit, title: event.title, remarks });
      await checkpoint('granted');
      return { memberId: member.id, debited: debit };
    },
    { persistenceStore, config: config('[source, refundId]'), keyPrefix: 'refund' },
  );
}

/** The persistence layer's table as Powertools documents it: partition key `id` (string), nothing else. */
export async function createIdempotencyTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
}

/** A Lambda context whose invocation has `timeoutMs` in all (the in-progress record lapses after it). */
export function lambdaContext(timeoutMs: number): Context {
  const started = Date.now();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'bench-powertools-purchase',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:ap-northeast-1:000000000000:function:bench-powertools-purchase',
    memoryLimitInMB: '512',
    awsRequestId: `req-${started}-${Math.random().toString(36).slice(2)}`,
    logGroupName: '/aws/lambda/bench-powertools-purchase',
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (Date.now() - started)),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
