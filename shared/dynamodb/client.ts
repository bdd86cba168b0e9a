import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient as DocumentClient } from '@aws-sdk/lib-dynamodb';
import { ENV } from '../config/index.js';
import { DynamoDBClient, DynamoDBDocumentClient } from './sdk.js';

/**
 * The document client the ledger and the quarantine use. `endpoint` points at dynalite locally; in AWS it
 * is absent. Undefined attributes are dropped (optional fields), and JS Sets marshal to string sets.
 */
export function createDocumentClient(config: DynamoDBClientConfig = {}): DocumentClient {
  return DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/**
 * The document client a function builds from its environment: in AWS the runtime's region and role;
 * with DYNAMODB_ENDPOINT set (locally, dynalite), that endpoint with any region and dummy keys, which
 * dynalite accepts.
 */
export function documentClientFromEnv(env: NodeJS.ProcessEnv): DocumentClient {
  const endpoint = env[ENV.DYNAMODB_ENDPOINT];
  return createDocumentClient(
    endpoint ? { endpoint, region: env.AWS_REGION ?? 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {},
  );
}
