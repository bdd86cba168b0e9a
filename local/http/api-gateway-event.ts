import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** What the local server read off one HTTP request. */
export interface IncomingRequest {
  method: string;
  /** The request target as sent, e.g. `/webhooks/shopify?x=1`. */
  url: string;
  /** Node's raw header list: [name, value, name, value, ...], names as sent. */
  rawHeaders: readonly string[];
  body: Buffer;
  sourceIp: string;
  localPort: number;
  protocol: string;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** requestContext.time as API Gateway writes it: `22/Nov/2026:10:04:05 +0000`. */
export function apiGatewayTime(epochMs: number): string {
  const d = new Date(epochMs);
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Text when the bytes are valid UTF-8, else base64, so the handler can always recover the exact bytes. */
function encodeBody(body: Buffer): { body?: string; isBase64Encoded: boolean } {
  if (body.length === 0) return { isBase64Encoded: false };
  try {
    return { body: utf8.decode(body), isBase64Encoded: false };
  } catch {
    return { body: body.toString('base64'), isBase64Encoded: true };
  }
}

/**
 * The API Gateway HTTP API (payload format 2.0) event for a request, built the way AWS builds it:
 * lower-cased headers with repeated ones joined by commas, cookies split out of the Cookie header,
 * repeated query parameters joined by commas, forwarding headers added.
 */
export function toApiGatewayEvent(
  request: IncomingRequest,
  routeKey: string,
  nowMs: number,
  ids: { requestId?: string; apiId?: string } = {},
): APIGatewayProxyEventV2 {
  const questionMark = request.url.indexOf('?');
  const rawPath = questionMark >= 0 ? request.url.slice(0, questionMark) : request.url;
  const rawQueryString = questionMark >= 0 ? request.url.slice(questionMark + 1) : '';

  const headers: Record<string, string> = {};
  let cookies: string[] = [];
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
    const name = (request.rawHeaders[i] ?? '').toLowerCase();
    const value = request.rawHeaders[i + 1] ?? '';
    if (name === 'cookie') {
      cookies = cookies.concat(
        value
          .split(';')
          .map((c) => c.trim())
          .filter((c) => c !== ''),
      );
      continue;
    }
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${request.sourceIp}` : request.sourceIp;
  headers['x-forwarded-port'] = String(request.localPort);
  headers['x-forwarded-proto'] = 'http';

  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(rawQueryString)) {
    query[key] = key in query ? `${query[key]},${value}` : value;
  }

  const host = headers.host ?? `localhost:${request.localPort}`;
  const requestId = ids.requestId ?? randomBytes(12).toString('base64').replace(/[+/]/g, 'A');
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: ids.apiId ?? 'local',
      domainName: host,
      domainPrefix: host.split(/[.:]/, 1)[0] ?? '',
      http: {
        method: request.method,
        path: rawPath,
        protocol: request.protocol,
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: apiGatewayTime(nowMs),
      timeEpoch: nowMs,
    },
    ...encodeBody(request.body),
  };
}
