/**
 * Answers of whatever stands in front of the membership service (a gateway, a WAF, a maintenance
 * page), which the spec never describes: a rate limit's `Retry-After`, and an HTML page where the
 * service answers JSON. shared/openapi/README.md, "Answers the spec does not give", says what each means.
 */

/** Longest Retry-After honoured (1 hour): a larger or garbled value is read as this. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

type Headers = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/**
 * `Retry-After` in ms from `nowMs`: delay-seconds or an HTTP date (RFC 9110 10.2.3); undefined when
 * absent or unreadable; a date in the past is 0; capped at MAX_RETRY_AFTER_MS.
 */
export function retryAfterMs(headers: Headers, nowMs: number): number | undefined {
  const value = first(headers['retry-after'])?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Math.min(Number(value) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - nowMs), MAX_RETRY_AFTER_MS);
}

/**
 * Whether an answer is an HTML page, not the service's JSON. The body decides, not the content type:
 * the spec's own invalid-token 401 sends JSON labelled text/html.
 */
export function isHtmlPage(bodyText: string): boolean {
  return /^\s*</.test(bodyText.slice(0, 256));
}
