/**
 * Request body parsing for the content types the spec accepts: JSON, form fields (token) and multipart form
 * fields (login, resign). Only text fields are read; files have no place in this API.
 */
import type { FastifyInstance } from 'fastify';
import { MESSAGES } from '../shared/openapi/messages.js';

export class BodyParseError extends Error {
  readonly kind = 'body_unreadable';
  readonly statusCode = 400;
}

export function parseMultipart(body: string, contentType: string): Record<string, string> {
  const match = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) throw new BodyParseError('The multipart body has no boundary.');
  const fields: Record<string, string> = {};
  for (const part of body.split(`--${boundary}`)) {
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd < 0) continue;
    const headers = part.slice(0, headerEnd);
    const name = /content-disposition:[^\r\n]*\bname="([^"]*)"/i.exec(headers)?.[1];
    if (name === undefined || /\bfilename=/i.test(headers)) continue;
    fields[name] = part.slice(headerEnd + 4).replace(/\r\n$/, '');
  }
  return fields;
}

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new BodyParseError(MESSAGES.invalidJson), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addContentTypeParser('multipart/form-data', { parseAs: 'string' }, (req, body, done) => {
    try {
      done(null, parseMultipart(body as string, req.headers['content-type'] ?? ''));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  // Any other content type: the body is not read (the endpoint then sees no parameters).
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, _body, done) => done(null, undefined));
}
