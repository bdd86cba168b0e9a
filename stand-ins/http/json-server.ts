import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** A JSON answer of a stand-in, with any extra headers (Retry-After). */
export interface JsonAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Cut the connection instead of answering (a fault: the request was executed, the answer lost). */
  destroy?: boolean;
}

/**
 * The HTTP server of a shop-side stand-in (Shopify Admin, Square Orders): the body read up to
 * `maxBodyBytes` (413 past it), one JSON answer per request, 500 when the handler throws.
 */
export function createJsonServer(handle: (req: IncomingMessage, body: Buffer) => JsonAnswer, maxBodyBytes: number): Server {
  const write = (res: ServerResponse, a: JsonAnswer) => {
    const text = JSON.stringify(a.body);
    res.writeHead(a.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...a.headers });
    res.end(text);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= maxBodyBytes) chunks.push(c);
    });
    req.on('end', () => {
      if (size > maxBodyBytes) return write(res, { status: 413, body: { errors: 'Request Entity Too Large' } });
      try {
        const answer = handle(req, Buffer.concat(chunks));
        if (answer.destroy) return res.destroy();
        write(res, answer);
      } catch {
        write(res, { status: 500, body: { errors: 'Internal Server Error' } });
      }
    });
    req.on('error', () => res.destroy());
  });
  server.keepAliveTimeout = 5_000;
  return server;
}
