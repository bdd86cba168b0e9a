import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startEmulator } from '../../emulator/index.js';
import { startDynalite, type LocalDynamo } from '../../test/support/dynalite.js';

/**
 * The real servers one side runs against, and the counts taken AT them (not from the code's own
 * beliefs): a fresh emulator (its `/__emulator/stats`) and a fresh dynalite behind a counting HTTP
 * proxy that reads each request's `X-Amz-Target` (the DynamoDB operation) before passing it on.
 */

const WRITE_OPERATIONS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

export interface SideServers {
  emulatorUrl: string;
  dynamo: LocalDynamo;
  /** An SDK client whose every request goes through the counting proxy. */
  client: DynamoDBClient;
  documentClient: DynamoDBDocumentClient;
  /** Requests by DynamoDB operation, as the proxy saw them. */
  operations: Map<string, number>;
  dynamoWrites(): number;
  upstreamCalls(clientId: string): Promise<number>;
  stop(): Promise<void>;
}

export async function startSideServers(emulatorConfig: unknown, tableName: string): Promise<SideServers> {
  const emulator = await startEmulator({ port: 0, config: emulatorConfig });
  const dynamo = await startDynalite(tableName);
  const target = new URL(dynamo.endpoint);
  const operations = new Map<string, number>();
  const proxy = createServer((req, res) => {
    const operation =
      String(req.headers['x-amz-target'] ?? '')
        .split('.')
        .pop() ?? '?';
    operations.set(operation, (operations.get(operation) ?? 0) + 1);
    const forward = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  const { port } = proxy.address() as AddressInfo;
  const client = new DynamoDBClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: 'ap-northeast-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  return {
    emulatorUrl: emulator.url,
    dynamo,
    client,
    documentClient: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
    operations,
    dynamoWrites: () => [...operations].reduce((sum, [op, n]) => sum + (WRITE_OPERATIONS.has(op) ? n : 0), 0),
    async upstreamCalls(clientId) {
      const response = await fetch(`${emulator.url}/__emulator/stats`);
      const body = (await response.json()) as {
        clients: Record<string, { routes: Record<string, { total: number }>; token_requests: number }>;
      };
      const stats = body.clients[clientId];
      if (!stats) return 0;
      // Token requests are upstream calls too; count them once whether or not the routes list them.
      const routes = Object.entries(stats.routes);
      const listed = routes.some(([route]) => route.includes('/token'));
      return routes.reduce((sum, [, r]) => sum + r.total, 0) + (listed ? 0 : stats.token_requests);
    },
    async stop() {
      client.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await dynamo.stop();
      await emulator.close();
    },
  };
}

/** Arms one emulator fault on the points calculation (the grant both implementations make). */
export async function armCalculationFault(emulatorUrl: string, fault: string, delayMs = 0): Promise<void> {
  const response = await fetch(`${emulatorUrl}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'POST', path: '^/api/ext/users/[^/]+/points/calculation$', fault, times: 1, delay_ms: delayMs }),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`emulator: arming ${fault} answered ${response.status}`);
}

/** A member's balance, read over plain HTTP (not through the client under test). */
export async function readBalance(emulatorUrl: string, token: string, externalId: string): Promise<bigint> {
  const response = await fetch(`${emulatorUrl}/api/ext/users/external_id/shopify/${externalId}`, {
    headers: { authorization: `Bearer ${token}`, 'user-agent': 'bench-comparison-reader' },
  });
  const body = (await response.json()) as { member?: { point?: number } };
  if (!response.ok || body.member?.point === undefined) throw new Error(`reading ${externalId}: ${response.status}`);
  return BigInt(body.member.point);
}
