import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { shopifyHeaders as signedShopifyHeaders, signPos, signShopify, signSquare } from './senders.js';
import { DEFAULT_SHOPIFY_API_VERSION } from '../shared/sources/index.js';

/**
 * Test helpers that act as the senders: fixtures read as raw text (never through JSON.parse, which
 * would round Shopify's 64-bit ids) and signed the way Shopify and the POS sign.
 */

export function fixture(path: string): string {
  return readFileSync(new URL(`../test/fixtures/${path}`, import.meta.url), 'utf8');
}

export function shopifyHmac(secret: string, body: string | Buffer): string {
  return signShopify(body, secret);
}

export function shopifyHeaders(
  body: string | Buffer,
  secret: string,
  topic: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ...signedShopifyHeaders(body, secret, {
      topic,
      shopDomain: 'example.myshopify.com',
      apiVersion: DEFAULT_SHOPIFY_API_VERSION,
      webhookId: 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
      eventId: '98880550-7158-44d4-b7cd-2c97c8a091b5',
      triggeredAt: '2026-11-20T19:03:12.000Z',
    }),
    ...extra,
  };
}

export function posSignature(secret: string, body: string | Buffer, unixSeconds: number): string {
  return signPos(body, secret, unixSeconds * 1000);
}

export function posHeaders(body: string | Buffer, secret: string, unixSeconds: number): Record<string, string> {
  return { 'content-type': 'application/json', 'x-signature': posSignature(secret, body, unixSeconds) };
}

/** An API Gateway HTTP API (payload v2) event for POST /webhooks/<source>, as API Gateway builds it. */
export function apiGatewayEvent(
  source: string,
  body: string,
  headers: Record<string, string>,
  opts: { isBase64Encoded?: boolean; method?: string; rawPath?: string; routeKey?: string; pathParameters?: Record<string, string> } = {},
): APIGatewayProxyEventV2 {
  const rawPath = opts.rawPath ?? `/webhooks/${source}`;
  const method = opts.method ?? 'POST';
  return {
    version: '2.0',
    routeKey: opts.routeKey ?? `${method} ${rawPath}`,
    rawPath,
    rawQueryString: '',
    // API Gateway lower-cases header names.
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
    ...(opts.pathParameters ? { pathParameters: opts.pathParameters } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'Shopify-Captain-Hook' },
      requestId: 'req-1',
      routeKey: opts.routeKey ?? `${method} ${rawPath}`,
      stage: '$default',
      time: '20/Nov/2026:19:03:12 +0000',
      timeEpoch: 1795719792000,
    },
    body: opts.isBase64Encoded ? Buffer.from(body, 'utf8').toString('base64') : body,
    isBase64Encoded: opts.isBase64Encoded ?? false,
  };
}

export function squareHeaders(body: string | Buffer, signatureKey: string, notificationUrl: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-square-hmacsha256-signature': signSquare(body, signatureKey, notificationUrl) };
}
