import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startEmulator } from '../../stand-ins/openapi/index.js';
import { startDynalite, type LocalDynamo } from '../../kit/dynalite.js';
import { type HistoryEntry, OPENING_POINTS, OPENING_REMARK } from './plan.js';

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

/** The grant each event makes on both sides: a purchase's points calculation, a refund's (negative) point grant. */
export type GrantCall = 'calculation' | 'grant';
const GRANT_PATHS: Record<GrantCall, string> = {
  calculation: '^/api/ext/users/[^/]+/points/calculation$',
  grant: '^/api/ext/users/[^/]+/points$',
};

/** Arms one emulator fault on the next POST of that grant (the call both implementations make). */
export async function armGrantFault(emulatorUrl: string, call: GrantCall, fault: string, delayMs = 0): Promise<void> {
  const response = await fetch(`${emulatorUrl}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'POST', path: GRANT_PATHS[call], fault, times: 1, delay_ms: delayMs }),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`emulator: arming ${fault} on the ${call} answered ${response.status}`);
}

async function memberId(emulatorUrl: string, headers: Record<string, string>, externalId: string): Promise<string> {
  const member = await fetch(`${emulatorUrl}/api/ext/users/external_id/shopify/${externalId}`, { headers });
  const found = (await member.json()) as { member?: { id?: string } };
  if (!member.ok || !found.member?.id) throw new Error(`reading ${externalId}: ${member.status}`);
  return found.member.id;
}

const readerHeaders = (token: string) => ({ authorization: `Bearer ${token}`, 'user-agent': 'bench-comparison-reader' });

/**
 * Gives a member the points of earlier purchases, over plain HTTP: a member holding only this order's
 * points would make the upstream refuse a second debit larger than what is left (insufficient points),
 * which hides a doubled debit behind a refusal. Real members mostly hold more.
 */
export async function grantOpeningBalance(emulatorUrl: string, token: string, externalId: string): Promise<void> {
  const headers = readerHeaders(token);
  const id = await memberId(emulatorUrl, headers, externalId);
  const response = await fetch(`${emulatorUrl}/api/ext/users/${id}/points`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ point: OPENING_POINTS, title: 'Earlier purchases', remarks: OPENING_REMARK }),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`opening balance of ${externalId}: ${response.status}`);
}

/** A member's point history, newest first, read over plain HTTP (not through the client under test). */
export async function readHistory(emulatorUrl: string, token: string, externalId: string): Promise<HistoryEntry[]> {
  const headers = readerHeaders(token);
  const id = await memberId(emulatorUrl, headers, externalId);
  const entries: HistoryEntry[] = [];
  for (let page = 1; ; page += 1) {
    const response = await fetch(`${emulatorUrl}/api/ext/users/${id}/points?per_page=1000&page=${page}`, { headers });
    const body = (await response.json()) as { points?: HistoryEntry[]; last_page?: number };
    if (!response.ok || !body.points) throw new Error(`reading the history of ${externalId}: ${response.status}`);
    entries.push(...body.points.map((p) => ({ point: p.point, remarks: p.remarks })));
    if (page >= (body.last_page ?? 1)) return entries;
  }
}

async function grantRaw(emulatorUrl: string, token: string, id: string, point: number, remarks: string): Promise<void> {
  const response = await fetch(`${emulatorUrl}/api/ext/users/${id}/points`, {
    method: 'POST',
    headers: { ...readerHeaders(token), 'content-type': 'application/json' },
    body: JSON.stringify({ point, title: 'Elsewhere', remarks }),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`granting ${point} to ${id}: ${response.status}`);
}

/**
 * A busy account: `count` newer entries (1 point each, from elsewhere), so older remarks move past the
 * first page. Returns the requests it made (the emulator counts them under the same client: not the side's calls).
 */
export async function addBusyEntries(emulatorUrl: string, token: string, externalId: string, count: number): Promise<number> {
  const id = await memberId(emulatorUrl, readerHeaders(token), externalId);
  for (let i = 0; i < count; i += 1) await grantRaw(emulatorUrl, token, id, 1, `bench:busy:${i}`);
  return count + 1;
}

/** The member spends at the till until it holds `left` points (one negative entry, remark `bench:spent`); returns the requests made. */
export async function spendDownTo(emulatorUrl: string, token: string, externalId: string, left: bigint): Promise<number> {
  const headers = readerHeaders(token);
  const response = await fetch(`${emulatorUrl}/api/ext/users/external_id/shopify/${externalId}`, { headers });
  const found = (await response.json()) as { member?: { id?: string; point?: number } };
  if (!found.member?.id || typeof found.member.point !== 'number') throw new Error(`reading ${externalId}: ${response.status}`);
  const spend = found.member.point - Number(left);
  if (spend > 0) await grantRaw(emulatorUrl, token, found.member.id, -spend, 'bench:spent');
  return spend > 0 ? 2 : 1;
}
