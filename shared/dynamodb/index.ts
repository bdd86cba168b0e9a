/**
 * The DynamoDB SDK as this project uses it: the document client (from a config or from a function's
 * environment) and the SDK values the ledger and the quarantine store need, loaded with require()
 * (sdk.ts says why).
 */
export { createDocumentClient, documentClientFromEnv } from './client.js';
export { type ScanFilter, scanKeyPrefix } from './scan.js';
export {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DeleteCommand,
  DynamoDBClient,
  DynamoDBDocumentClient,
  GetCommand,
  isConditionFailure,
  PutCommand,
  QueryCommand,
  ResourceInUseException,
  ScanCommand,
  UpdateCommand,
} from './sdk.js';
