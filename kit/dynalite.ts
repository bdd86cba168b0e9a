import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createLedgerTable } from '../shared/ledger/index.js';

const WRITE_COMMANDS = /^(Put|Update|Delete|BatchWrite|TransactWrite)(Item)?Command$/;

export interface LocalDynamo {
  endpoint: string;
  tableName: string;
  client: DynamoDBClient;
  documentClient: DynamoDBDocumentClient;
  /** Write requests (Put/Update/Delete) sent through `client` since start or the last reset. */
  writes(): number;
  resetWrites(): void;
  stop(): Promise<void>;
}

let tables = 0;

/** dynalite (real DynamoDB API over HTTP, in memory) on a free port, with the ledger table created. */
export async function startDynalite(tableName = `ledger-${process.pid}-${++tables}`): Promise<LocalDynamo> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  // Node's server closes a keep-alive socket idle for 5 s; the SDK's agent may reuse it at that very
  // moment and get ECONNRESET, which maxAttempts 1 turns into a failed write (a lease left held). DynamoDB
  // keeps connections far longer and the product's clients retry; here idle sockets stay open until stop().
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  let writes = 0;
  // Counts what the ledger really sends: middleware sees every command, document-client ones included.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (WRITE_COMMANDS.test(String(context.commandName ?? ''))) writes++;
      return next(args);
    },
    { step: 'initialize', name: 'countLedgerWrites' },
  );
  const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  await createLedgerTable(client, tableName);
  return {
    endpoint,
    tableName,
    client,
    documentClient,
    writes: () => writes,
    resetWrites: () => {
      writes = 0;
    },
    async stop() {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A clock the test moves by hand (epoch ms). */
export function manualClock(start = Date.parse('2026-01-15T01:00:00Z')) {
  let now = start;
  const clock = () => now;
  return Object.assign(clock, {
    advance(ms: number) {
      now += ms;
    },
    set(ms: number) {
      now = ms;
    },
  });
}
