import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';

/** What every stand-in's server is built with; a stand-in adds its own (router limits, error mapping). */
export interface StandInServerOptions extends Omit<FastifyServerOptions, 'bodyLimit'> {
  /** Largest body taken, in bytes; past it the framework refuses the request (FST_ERR_CTP_BODY_TOO_LARGE). */
  bodyLimit: number;
}

/** A listening stand-in: its base URL, its port, and how to stop it. */
export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * A stand-in's Fastify server: no logger, open connections cut on close (a test's keep-alive socket must
 * not hold it open), and a request arriving while it closes is served or cut, never Fastify's 503.
 */
export function createStandInServer(options: StandInServerOptions): FastifyInstance {
  return Fastify({ logger: false, forceCloseConnections: true, return503OnClosing: false, ...options });
}

/** Every body is taken as raw bytes, whatever its Content-Type (the stand-in reads it as it needs). */
export function readRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
}

/** Listens on host:port (0: a free port) until `close`; a bind error rejects. */
export async function serve(app: FastifyInstance, options: { port?: number; host?: string }): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  await app.listen({ port: options.port ?? 0, host });
  const port = (app.server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${urlHost}:${port}`, port, close: () => app.close() };
}
