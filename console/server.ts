import { createServer, type IncomingMessage } from 'node:http';
import { adminRefusal, NO_FRAMING_HEADERS } from '../shared/http/index.js';
import { CONSOLE_PATH, type ConsoleAnswer, consoleRoutes } from './routes.js';
import type { ConsoleSource } from './source.js';

export interface ConsoleServer {
  url: string;
  close(): Promise<void>;
}

/** Bodies of the console's actions are tiny JSON objects. */
const MAX_BODY = 16 * 1024;

const answer = (status: number, error: string): ConsoleAnswer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify({ error }), 'utf8'),
});

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * `npm run console -- --stage S`: the console's routes on a loopback port of the operator's machine,
 * behind the same guard as `npm start`'s /__local routes (loopback Host; an Origin only the page's own).
 */
export async function startConsoleServer(source: ConsoleSource, port: number): Promise<ConsoleServer> {
  const routes = consoleRoutes(source);
  const server = createServer((req, res) => {
    const handle = async (): Promise<ConsoleAnswer> => {
      const body = await readBody(req);
      if (body === undefined) return answer(413, 'the body is too large');
      const refusal = adminRefusal({ headers: req.headers, hasBody: body.length > 0 }, { sameOrigin: true });
      if (refusal) return answer(refusal.status, refusal.error);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'GET' && url.pathname === '/') return { status: 302, headers: { location: CONSOLE_PATH }, body: Buffer.alloc(0) };
      const route = routes[`${req.method ?? 'GET'} ${url.pathname}`];
      return route === undefined ? answer(404, 'not found') : route({ body, query: url.searchParams });
    };
    handle().then(
      (a) => {
        // Every answer, a refusal or a 404 too: the console is never framed (NO_FRAMING_HEADERS).
        res.writeHead(a.status, { ...a.headers, ...NO_FRAMING_HEADERS, 'content-length': String(a.body.length) });
        res.end(a.body);
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  return {
    url: `http://127.0.0.1:${bound}${CONSOLE_PATH}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
