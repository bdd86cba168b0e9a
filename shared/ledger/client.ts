import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient as DocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient, DynamoDBDocumentClient } from './sdk.js';

/**
 * The document client the ledger uses. `endpoint` points at dynalite locally; in AWS it is absent.
 * Undefined attributes are dropped (optional fields), and JS Sets marshal to string sets.
 */
export function createDocumentClient(config: DynamoDBClientConfig = {}): DocumentClient {
  return DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
}
