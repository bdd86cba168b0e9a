import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A test double of the membership service: a real HTTP server in front of the emulator that forwards
 * every request and can change the answers, to show how the client copes with a service that words
 * (or answers) differently from the emulator, which the emulator contract has no setting for.
 * `answer` sees each answer (method, path, status, body text) and may return another status and body.
 */
export type AnswerRewrite = (a: {
  method: string;
  path: string;
  status: number;
  body: string;
}) => { status: number; body: string } | undefined;

export interface RewordingProxy {
  url: string;
  /** Replaces the rewrite (undefined: answers pass unchanged). */
  setRewrite(rewrite: AnswerRewrite | undefined): void;
  /** Answers matching requests itself, without forwarding them (nothing runs upstream). */
  setRefusal(refusal: ((r: { method: string; path: string }) => { status: number; body: string } | undefined) | undefined): void;
  close(): Promise<void>;
}

export async function startRewordingProxy(target: string): Promise<RewordingProxy> {
  const upstream = new URL(target);
  let rewrite: AnswerRewrite | undefined;
  let refusal: Parameters<RewordingProxy['setRefusal']>[0];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const refused = refusal?.({ method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0]! });
      if (refused) {
        res.writeHead(refused.status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(refused.body)) });
        res.end(refused.body);
        return;
      }
      const forwarded = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            const original = {
              method: req.method ?? 'GET',
              path: (req.url ?? '/').split('?')[0]!,
              status: answer.statusCode ?? 502,
              body: Buffer.concat(parts).toString('utf8'),
            };
            const changed = rewrite?.(original) ?? original;
            const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(changed.body)) };
            delete headers['transfer-encoding'];
            res.writeHead(changed.status, headers);
            res.end(changed.body);
          });
        },
      );
      forwarded.on('error', () => res.destroy());
      forwarded.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setRewrite: (r) => {
      rewrite = r;
    },
    setRefusal: (r) => {
      refusal = r;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
