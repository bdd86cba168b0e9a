import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { LEDGER_TABLE_SCHEMA } from '../config/index.js';
import { GetCommand } from '../dynamodb/index.js';

/** The `Date` of one answer of the ledger table's endpoint, with our clock just before and after the request. */
export interface TableDateReading {
  sentAt: number;
  receivedAt: number;
  date: string | undefined;
}

/**
 * Reads the clock of the DynamoDB endpoint holding the ledger (AWS's, for a stage; the local stack's own
 * under `npm start`): a consistent GetItem of a key no record has, the Date of its HTTP answer read by a
 * middleware of that command alone, timed around the request on the wire (after signing, inside retries).
 * Undefined when no answer came. An operator command checks its machine's clock with it (ops/clock-skew.ts).
 */
export async function readTableDate(
  client: Pick<DynamoDBDocumentClient, 'send'>,
  tableName: string,
  clock: () => number,
): Promise<TableDateReading | undefined> {
  let reading: TableDateReading | undefined;
  const get = new GetCommand({ TableName: tableName, Key: { [LEDGER_TABLE_SCHEMA.partitionKey]: 'clock-check' }, ConsistentRead: true });
  get.middlewareStack.add(
    (next) => async (args) => {
      const sentAt = clock();
      const result = await next(args);
      const headers = (result.response as { headers?: Record<string, string | undefined> } | undefined)?.headers ?? {};
      reading = { sentAt, receivedAt: clock(), date: headers.date ?? headers.Date };
      return result;
    },
    // override: the document client's command joins its own stack twice (lib-dynamodb), as its marshalling does.
    { step: 'deserialize', name: 'readServerDate', priority: 'low', override: true },
  );
  await client.send(get);
  return reading;
}
