import type { RequestHeaders } from './types.js';

/**
 * A header by name, case-insensitive, with or without the `X-` prefix (proxies and some senders
 * drop it). The name as given wins over its other form, whatever their order: an unrelated
 * `Signature` header (RFC 9421) must not shadow `X-Signature`. Repeated headers joined by API
 * Gateway with commas are returned as given.
 */
export function header(headers: RequestHeaders, name: string): string | undefined {
  const given = name.toLowerCase();
  const bare = given.replace(/^x-/, '');
  const other = given === bare ? `x-${bare}` : bare;
  let fallback: string | undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const k = key.toLowerCase();
    if (k === given) return value.trim();
    if (k === other) fallback ??= value.trim();
  }
  return fallback;
}
