import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context } from 'aws-lambda';
import type { PointsApi } from '../../shared/points/index.js';

/**
 * The purchase handler a careful AWS TypeScript team writes with Powertools idempotency 2.x, for the
 * side-by-side run: `makeIdempotent` around the work, `DynamoDBPersistenceLayer` on the same DynamoDB,
 * the idempotency key = source + order id (JMESPath), the Lambda context registered so an attempt that
 * dies leaves an in-progress record that lapses with the invocation's timeout, and the same Open API
 * client as the bridge (its timeouts, its retries of GETs). Nothing of the bridge's ledger: no lease of
 * its own, no marker lookup in the point history before re-granting.
 */

export interface PowertoolsPurchase {
  source: string;
  orderId: string;
  externalId: string;
  amount: number;
  title: string;
}

/** Between which lines a crash is injected: after the customer lookup (before the grant), after the grant. */
export type PowertoolsStep = 'customer' | 'granted';

export interface PowertoolsHandlerDeps {
  openapi: Pick<PointsApi, 'getMemberByExternalId' | 'calculatePoints'>;
  client: DynamoDBClient;
  tableName: string;
  /** A throw or a never-settling promise here acts as the process dying at that line. */
  checkpoint?: (step: PowertoolsStep) => Promise<void>;
}

export type PowertoolsHandler = (event: PowertoolsPurchase, context: Context) => Promise<{ memberId: string; points: number }>;

export function makePowertoolsHandler(deps: PowertoolsHandlerDeps): PowertoolsHandler {
  const checkpoint = deps.checkpoint ?? (async () => undefined);
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName: deps.tableName, awsSdkV3Client: deps.client });
  const config = new IdempotencyConfig({ eventKeyJmesPath: '[source, orderId]', throwOnNoIdempotencyKey: true, expiresAfterSeconds: 3600 });
  return makeIdempotent(
    async (event: PowertoolsPurchase, _context: Context) => {
      const member = await deps.openapi.getMemberByExternalId('shopify', event.externalId);
      await checkpoint('customer');
      // The order id goes into remarks for people reading the history; nothing here reads it back.
      const after = await deps.openapi.calculatePoints(member.id, {
        amount: event.amount,
        title: event.title,
        remarks: `${event.source}:order:${event.orderId}`,
      });
      await checkpoint('granted');
      return { memberId: member.id, points: after.point };
    },
    { persistenceStore, config },
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
