/**
 * Request body parsing for the content types the Open API accepts: JSON, form fields (token) and multipart form
 * fields (login, resign). Only text fields are read; files have no place in this API.
 */
import type { FastifyInstance } from 'fastify';
import { MESSAGES } from '../../shared/openapi/index.js';

/**
 * A body that could not be read. It is handed to the endpoint as the body rather than failing the request
 * in the parser, so that routing, stats, faults, the access token and the customer are checked first (and
 * the request counts like any other); the endpoint answers 400 with `message` once it reads the body.
 */
export class UnreadableBody {
  readonly kind = 'body_unreadable';
  constructor(readonly message: string) {}
}

export function parseMultipart(body: string, contentType: string): Record<string, string> | UnreadableBody {
  const match = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) return new UnreadableBody('The multipart body has no boundary.');
  // Collected as entries: `fields[name] = ...` would drop a field named __proto__.
  const fields: [string, string][] = [];
  for (const part of body.split(`--${boundary}`)) {
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd < 0) continue;
    const headers = part.slice(0, headerEnd);
    const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(headers)?.[1];
    if (name === undefined || /\bfilename=/i.test(headers)) continue;
    fields.push([name, part.slice(headerEnd + 4).replace(/\r\n$/, '')]);
  }
  return Object.fromEntries(fields);
}

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(null, new UnreadableBody(MESSAGES.invalidJson));
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addContentTypeParser('multipart/form-data', { parseAs: 'string' }, (req, body, done) => {
    done(null, parseMultipart(body as string, req.headers['content-type'] ?? ''));
  });
  // Any other content type: the body is not read (the endpoint then sees no parameters).
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, _body, done) => done(null, undefined));
}
