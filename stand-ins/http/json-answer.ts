import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readRawBodies } from './server.js';

/** A JSON answer of a stand-in, with any extra headers (Retry-After). */
export interface JsonAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Cut the connection instead of answering (a fault: the request was executed, the answer lost). */
  destroy?: boolean;
}

/** A stand-in's whole API: one JSON answer per request, from the request and its raw body. */
export type JsonHandler = (req: IncomingMessage, body: Buffer) => JsonAnswer;

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const MAX_BODY = 'FST_ERR_CTP_BODY_TOO_LARGE';
const BAD_MEDIA_TYPE = 'FST_ERR_CTP_INVALID_MEDIA_TYPE';

/** Writes `answer` as JSON (`application/json; charset=utf-8`), or cuts the connection for a `destroy` fault. */
export function sendJson(req: FastifyRequest, reply: FastifyReply, answer: JsonAnswer): void {
  if (answer.destroy) {
    reply.hijack();
    req.raw.socket.destroy();
    return;
  }
  reply.code(answer.status).header('content-type', 'application/json; charset=utf-8');
  if (answer.headers) reply.headers(answer.headers);
  void reply.send(JSON.stringify(answer.body));
}

/** `handle`'s answer to the request, 500 when it throws. */
export function answerJson(handle: JsonHandler, req: FastifyRequest, reply: FastifyReply, body: Buffer): void {
  let result: JsonAnswer;
  try {
    result = handle(req.raw, body);
  } catch {
    result = { status: 500, body: { errors: 'Internal Server Error' } };
  }
  sendJson(req, reply, result);
}

/** The body a Content-Type the framework cannot parse still carries: read here, up to `limit` bytes. */
async function readUnparsed(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= limit) chunks.push(chunk as Buffer);
  }
  return size > limit ? undefined : Buffer.concat(chunks);
}

/** A request the framework refused for another reason (a Content-Length the body does not match, ...). */
function otherProblem(error: { statusCode?: number; message?: string }): JsonAnswer {
  const status = error.statusCode ?? 500;
  return status >= 400 && status < 500
    ? { status, body: { errors: error.message ?? 'Bad Request' } }
    : { status: 500, body: { errors: 'Internal Server Error' } };
}

/**
 * Serves every method and path with `handle`: the body read raw up to `bodyLimit` (413 past it), 500 when
 * the handler throws. (A path the router cannot decode: the server's `frameworkErrors`, stand-in.ts.)
 */
export function routeAllTo(app: FastifyInstance, handle: JsonHandler, bodyLimit: number): void {
  readRawBodies(app);
  const tooLarge = { status: 413, body: { errors: 'Request Entity Too Large' } };
  app.route({
    method: METHODS,
    url: '*',
    handler: (req, reply) => answerJson(handle, req, reply, (req.body as Buffer | undefined) ?? Buffer.alloc(0)),
  });
  app.setErrorHandler(async (error: { code?: string; statusCode?: number; message?: string }, req, reply) => {
    if (error.code === MAX_BODY) return sendJson(req, reply, tooLarge);
    if (error.code !== BAD_MEDIA_TYPE) return sendJson(req, reply, otherProblem(error));
    const body = await readUnparsed(req.raw, bodyLimit);
    return body === undefined ? sendJson(req, reply, tooLarge) : answerJson(handle, req, reply, body);
  });
}
