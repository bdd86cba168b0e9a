/**
 * Turns a failed answer (or a transport failure) into an OpenApiError. This is the only place that
 * reads the service's message texts.
 */
import { MESSAGES } from './messages.js';
import { OpenApiError, type Executed, type OpenApiErrorKind } from './errors.js';
import { AnswerTooLargeError } from '../http-client/index.js';
import { parseJsonOrUndefined } from '../text/index.js';

function isAbort(e: unknown): boolean {
  const name = (e as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

/** What the classifier needs to know about the request that failed. */
export interface FailedRequest {
  route: string;
  /** A 404 on this route means the customer does not exist (external-ID delete, API-OPENAPI08). */
  notFoundMeansMember?: boolean;
  /** The token endpoint: its 400/401 mean wrong client credentials, not a bad access token. */
  tokenEndpoint?: boolean;
}

/** `errors` may be a string, an array of strings, or an object keyed by field: flatten all. */
export function flattenMessages(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(flattenMessages);
  if (typeof value === 'object') return Object.values(value).flatMap(flattenMessages);
  return [];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

const BY_MESSAGE: ReadonlyArray<readonly [string, OpenApiErrorKind]> = [
  [MESSAGES.notContracted, 'not_contracted'],
  [MESSAGES.memberNotFound, 'member_not_found'],
  [MESSAGES.externalIdNotFound, 'external_id_not_found'],
  [MESSAGES.notAvailableForPoints, 'points_not_available'],
  [MESSAGES.insufficientPoints, 'insufficient_points'],
  [MESSAGES.handoverTokenExpired, 'handover_token_expired'],
  [MESSAGES.handoverTokenInvalid, 'handover_token_invalid'],
  [MESSAGES.loginFailed, 'login_failed'],
  [MESSAGES.accountLocked, 'account_locked'],
  [MESSAGES.deviceChange, 'device_change'],
];

function kindFromMessages(messages: string[]): OpenApiErrorKind | undefined {
  const trimmed = messages.map((m) => m.trim());
  for (const [text, kind] of BY_MESSAGE) if (trimmed.includes(text)) return kind;
  return undefined;
}

/** Classifies a non-2xx answer. */
export function classifyAnswer(
  req: FailedRequest,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  bodyText: string,
): OpenApiError {
  const body = record(parseJsonOrUndefined(bodyText));
  const errors = body?.errors;
  const messages = flattenMessages(errors);
  const allErrors = flattenMessages(body?.all_errors);
  for (const m of allErrors) if (!messages.includes(m)) messages.push(m);
  const errorCode = typeof body?.error_code === 'string' ? body.error_code : undefined;
  const wwwAuthenticate = String(headers['www-authenticate'] ?? '');

  let kind: OpenApiErrorKind;
  const byText = kindFromMessages(messages);
  if (status >= 500) kind = 'server';
  else if (!req.tokenEndpoint && (status === 401 || /error="invalid_token"/.test(wwwAuthenticate))) kind = 'invalid_token';
  else if (status === 405) kind = 'method_not_allowed';
  // The spec gives the simple errors as 400 but does not show every status (handover check): the
  // text decides. "Not contracted" may also come from the token endpoint.
  else if (byText) kind = byText;
  else if (req.tokenEndpoint && (status === 400 || status === 401)) kind = 'authentication_failed';
  else if (status === 404) kind = req.notFoundMeansMember ? 'member_not_found' : 'not_found';
  else kind = 'validation';

  // Every 4xx is a refusal before execution; a 5xx proves nothing (the operation may have run).
  // The rule does not depend on the method: a read has no effect, and the handover check (a GET)
  // consumes its token, so delivery is what `executed` describes.
  const executed: Executed = status >= 500 ? 'unknown' : 'no';
  return new OpenApiError({ kind, status, errorCode, messages, executed, route: req.route });
}

/** Errors raised while connecting: the request never left this process. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  // The request could not be built (e.g. a header value with a line break): never sent.
  'UND_ERR_INVALID_ARG',
  'ERR_INVALID_CHAR',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_HTTP_INVALID_HEADER_VALUE',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
  'ERR_UNESCAPED_CHARACTERS',
]);

function errorCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const cause = (e as { cause?: unknown } | null)?.cause;
  return cause && cause !== e ? errorCode(cause) : undefined;
}

/** Timeouts of one phase, and the call's overall deadline (ours, or an abort undici reports as its own). */
const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'CALL_DEADLINE',
  'UND_ERR_ABORTED',
]);

/** Classifies a transport failure (no usable answer). */
export function classifyTransportError(req: FailedRequest, e: unknown): OpenApiError {
  if (e instanceof AnswerTooLargeError) {
    // The status came: a 4xx still proves a refusal; a 2xx ran; a 5xx proves nothing.
    const executed: Executed = e.status >= 400 && e.status < 500 ? 'no' : 'unknown';
    return new OpenApiError({ kind: 'invalid_response', executed, status: e.status, messages: [e.message], route: req.route });
  }
  const code = errorCode(e) ?? (isAbort(e) ? 'UND_ERR_ABORTED' : 'UNKNOWN');
  const timeout = TIMEOUT_CODES.has(code);
  const sent = !NOT_SENT_CODES.has(code);
  return new OpenApiError({
    kind: timeout ? 'timeout' : 'network',
    executed: sent ? 'unknown' : 'no',
    messages: [code],
    route: req.route,
    cause: e,
  });
}
