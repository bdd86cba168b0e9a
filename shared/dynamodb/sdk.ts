/**
 * The DynamoDB SDK values the ledger uses, loaded with require(). The functions leave the AWS SDK to
 * the Lambda runtime (infra/paths.ts), whose packages are CommonJS: an ESM `import` of them makes
 * Node scan each package's source for its export names first, which costs the worker's cold start
 * about a third of the SDK's load time (bench/results.md); require() skips that scan. The module is
 * the same either way (one dist-cjs file, one require cache), so `instanceof` holds across both.
 */
import { createRequire } from 'node:module';
import type * as DynamoDB from '@aws-sdk/client-dynamodb';
import type * as DocumentClient from '@aws-sdk/lib-dynamodb';

const load = createRequire(import.meta.url);
const dynamodb = load('@aws-sdk/client-dynamodb') as typeof DynamoDB;
const documents = load('@aws-sdk/lib-dynamodb') as typeof DocumentClient;

export const { DynamoDBClient, ConditionalCheckFailedException, CreateTableCommand, ResourceInUseException } = dynamodb;
export const { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, ScanCommand, UpdateCommand } = documents;

/** A conditional write whose condition did not hold (by class, or by name across SDK copies). */
export const isConditionFailure = (e: unknown): boolean =>
  e instanceof ConditionalCheckFailedException || (e as { name?: string }).name === 'ConditionalCheckFailedException';
