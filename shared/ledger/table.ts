import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateTableCommand, ResourceInUseException } from '../dynamodb/index.js';
import { LEDGER_TABLE_SCHEMA } from '../config/index.js';

/**
 * Creates the ledger table where nothing else does (tests, the local stack); in AWS the CDK stack owns
 * it, with TTL on `ttl`. dynalite has no UpdateTimeToLive, so TTL is not set here. Existing table: no-op.
 */
export async function createLedgerTable(client: DynamoDBClient, tableName: string): Promise<void> {
  const index = LEDGER_TABLE_SCHEMA.unlinkedIndex;
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [
          { AttributeName: LEDGER_TABLE_SCHEMA.partitionKey, AttributeType: 'S' },
          { AttributeName: index.partitionKey, AttributeType: 'S' },
          { AttributeName: index.sortKey, AttributeType: 'S' },
        ],
        KeySchema: [{ AttributeName: LEDGER_TABLE_SCHEMA.partitionKey, KeyType: 'HASH' }],
        GlobalSecondaryIndexes: [
          {
            IndexName: index.name,
            KeySchema: [
              { AttributeName: index.partitionKey, KeyType: 'HASH' },
              { AttributeName: index.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  } catch (err) {
    if (err instanceof ResourceInUseException || (err as { name?: string }).name === 'ResourceInUseException') return;
    throw err;
  }
}
