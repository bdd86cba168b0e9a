import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DatedServer {
  url: string;
  /** Its clock from now on: this machine's plus `ms` (negative: behind, so this machine reads as ahead). */
  setOffset(ms: number): void;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 whose clock is this machine's plus an offset, told by its own Date
 * header; it answers every request as DynamoDB answers a GetItem that finds nothing (`{}`), so the SDK
 * can read it too. The reference clock of ops/clock-skew.ts, under the test's control.
 */
export async function startDatedServer(): Promise<DatedServer> {
  let offsetMs = 0;
  const server = createServer((req, res) => {
    req.resume();
    res.setHeader('Date', new Date(Date.now() + offsetMs).toUTCString());
    res.setHeader('content-type', 'application/x-amz-json-1.0');
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setOffset: (ms) => {
      offsetMs = ms;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
