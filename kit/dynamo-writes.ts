import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A counting proxy in front of dynalite: every DynamoDB request passes through it over HTTP, whoever's
 * client sent it (a handler built from its environment builds its own), so the writes a function
 * really sends are counted at the wire. Write requests are asked for their consumed capacity
 * (`ReturnConsumedCapacity: TOTAL`: dynalite computes AWS's write units from the item sizes, 1 KB each,
 * the larger of the item before and after), which the proxy sums and strips from the answer. Requests
 * on the upstream budget's counters (keys `budget#...`, shared/ledger/upstream-budget.ts) are counted
 * apart, as limiter requests, reads and writes alike: they are not the ledger's writes.
 */

/** The key prefix of the upstream budget's counters (shared/ledger/upstream-budget.ts). */
const BUDGET_KEY = /^budget#/;

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

export interface WriteCounter {
  /** Point DYNAMODB_ENDPOINT here. */
  endpoint: string;
  /** Write requests by operation since start or the last reset (failed conditional writes included). */
  writes(): Record<string, number>;
  /** Write requests in all. */
  total(): number;
  /** Write capacity units of the writes that succeeded. */
  writeUnits(): number;
  /** Requests (reads and writes) on the upstream budget's counters. */
  limiterRequests(): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startWriteCounter(dynaliteEndpoint: string): Promise<WriteCounter> {
  const target = new URL(dynaliteEndpoint);
  let writes: Record<string, number> = {};
  let units = 0;
  let limiter = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      let body = Buffer.concat(chunks);
      const key = (JSON.parse(body.toString('utf8') || '{}') as { Key?: { pk?: { S?: string } } }).Key?.pk?.S ?? '';
      const onBudget = BUDGET_KEY.test(key);
      if (onBudget) limiter += 1;
      const isWrite = WRITES.has(operation) && !onBudget;
      if (isWrite) {
        writes[operation] = (writes[operation] ?? 0) + 1;
        const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
        body = Buffer.from(JSON.stringify({ ...parsed, ReturnConsumedCapacity: 'TOTAL' }));
      }
      const headers = { ...req.headers, host: target.host, 'content-length': String(body.length) };
      const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          let out = Buffer.concat(parts);
          if (isWrite && answer.statusCode === 200) {
            const parsed = JSON.parse(out.toString('utf8') || '{}') as { ConsumedCapacity?: { CapacityUnits?: number } };
            units += parsed.ConsumedCapacity?.CapacityUnits ?? 0;
            delete parsed.ConsumedCapacity;
            out = Buffer.from(JSON.stringify(parsed));
          }
          // The body changed: its length is new, and its checksum (which the SDK checks when present) is dropped.
          const { 'x-amz-crc32': _crc, ...kept } = answer.headers;
          const h = { ...kept, 'content-length': String(out.length) };
          res.writeHead(answer.statusCode ?? 500, h);
          res.end(out);
        });
      });
      upstream.on('error', (e) => {
        res.writeHead(502);
        res.end(String(e));
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    writes: () => ({ ...writes }),
    total: () => Object.values(writes).reduce((a, b) => a + b, 0),
    writeUnits: () => units,
    limiterRequests: () => limiter,
    reset() {
      writes = {};
      units = 0;
      limiter = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
