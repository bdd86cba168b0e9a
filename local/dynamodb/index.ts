import type { Server } from 'node:http';
import { listen } from '../../stand-ins/http/index.js';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { createLedgerTable } from '../../shared/ledger/index.js';
import { createQuarantineTable } from '../../shared/quarantine/index.js';
import { LOCAL_AWS } from '../../kit/local-stack/info.js';

export { LOCAL_AWS };

export interface LocalDynamoDb {
  endpoint: string;
  port: number;
  tableName: string;
  close(): Promise<void>;
}

/**
 * dynalite in memory on `port` (0: a free one) with the ledger table created through the ledger's own
 * helper, so the table matches what the CDK stack creates (partition key `pk`).
 */
export async function startLocalDynamoDb(options: { port: number; host?: string; tableName: string }): Promise<LocalDynamoDb> {
  const host = options.host ?? '127.0.0.1';
  const server: Server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const port = await listen(server, options.port, host);
  const endpoint = `http://${host}:${port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      // The worker's SDK client keeps sockets alive; they would hold close() open.
      server.closeAllConnections();
    });
  const client = new DynamoDBClient({ endpoint, ...LOCAL_AWS, maxAttempts: 3 });
  try {
    await createLedgerTable(client, options.tableName);
  } catch (e) {
    await close();
    throw e;
  } finally {
    client.destroy();
  }
  return { endpoint, port, tableName: options.tableName, close };
}

/** The quarantine table in a running dynalite (the CDK stack creates it in AWS). */
export async function createLocalQuarantineTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, ...LOCAL_AWS, maxAttempts: 3 });
  try {
    await createQuarantineTable(client, tableName);
  } finally {
    client.destroy();
  }
}
