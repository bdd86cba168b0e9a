import type { RequestHeaders } from './types.js';

/**
 * A header by name, case-insensitive, with or without the `X-` prefix (proxies and some senders
 * drop it). Repeated headers joined by API Gateway with commas are returned as given.
 */
export function header(headers: RequestHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase().replace(/^x-/, '');
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const k = key.toLowerCase();
    if (k === wanted || k === `x-${wanted}`) return value.trim();
  }
  return undefined;
}
