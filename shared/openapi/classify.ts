/**
 * Turns a failed answer (or a transport failure) into an OpenApiError by what the spec fixes: the
 * status, the structured errors' `error_code`, the insufficient-points field `point`, and the few
 * texts it gives word for word. This is the only place that reads the service's answers.
 */
import { SPEC_FIXED_TEXTS } from './messages.js';
import { OpenApiError, type Executed, type OpenApiErrorKind } from './errors.js';
import { AnswerTooLargeError, TIMEOUT_CODE } from '../http-client/index.js';
import { parseJsonOrUndefined } from '../text/index.js';
import { isHtmlPage, retryAfterMs } from './gateway.js';

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

/**
 * The error texts the spec fixes word for word ("Errors", simple errors). Nothing else in a message is
 * read: texts the spec only describes (validation, login) are the emulator's wording, not the service's.
 */
const SPEC_TEXTS: ReadonlyArray<readonly [string, OpenApiErrorKind]> = [
  [SPEC_FIXED_TEXTS.notContracted, 'not_contracted'],
  [SPEC_FIXED_TEXTS.memberNotFound, 'member_not_found'],
  [SPEC_FIXED_TEXTS.externalIdNotFound, 'external_id_not_found'],
  [SPEC_FIXED_TEXTS.notAvailableForPoints, 'points_not_available'],
  [SPEC_FIXED_TEXTS.handoverTokenExpired, 'handover_token_expired'],
  [SPEC_FIXED_TEXTS.handoverTokenInvalid, 'handover_token_invalid'],
];

function kindFromSpecTexts(messages: string[]): OpenApiErrorKind | undefined {
  const trimmed = messages.map((m) => m.trim());
  for (const [text, kind] of SPEC_TEXTS) if (trimmed.includes(text)) return kind;
  return undefined;
}

/** Insufficient points is the one error the spec fixes by shape: `errors` an object with the field `point`. */
function isInsufficientPoints(status: number, errors: unknown): boolean {
  const byField = record(errors);
  return status === 400 && byField !== undefined && Array.isArray(byField.point);
}

/** The structured errors' codes (spec, "Structured errors"). */
const ERROR_CODES = { authentication: 'API-OPENAPI16', methodNotAllowed: 'API-OPENAPI09' } as const;

/** Classifies a 4xx by what the spec fixes: the status, the error code, the `point` field, the fixed texts. */
function clientErrorKind(
  req: FailedRequest,
  status: number,
  body: Record<string, unknown> | undefined,
  messages: string[],
  bearerInvalid: boolean,
): OpenApiErrorKind {
  const errorCode = body?.error_code;
  // A 403 is no answer of the spec's, whatever its body says: a WAF or gateway refused us (parked at once).
  if (status === 403) return 'unrecognised';
  if (req.tokenEndpoint && (status === 400 || status === 401)) {
    // "Not contracted" may also come from the token endpoint.
    return kindFromSpecTexts(messages) === 'not_contracted' ? 'not_contracted' : 'authentication_failed';
  }
  if (status === 401 || bearerInvalid || errorCode === ERROR_CODES.authentication) return 'invalid_token';
  if (status === 405 || errorCode === ERROR_CODES.methodNotAllowed) return 'method_not_allowed';
  if (isInsufficientPoints(status, body?.errors)) return 'insufficient_points';
  // The spec gives the simple errors as 400 but does not show every status (handover check): the fixed text decides.
  const byText = kindFromSpecTexts(messages);
  if (byText) return byText;
  if (status === 404) return req.notFoundMeansMember ? 'member_not_found' : 'not_found';
  // 400 is the spec's "invalid request parameters", whatever its (unfixed) wording.
  if (status === 400) return 'validation';
  // A 4xx the spec never gives (409, 422, ...): the caller parks the event and an alarm says so.
  return 'unrecognised';
}

/**
 * The answers of whatever stands in front of the service (shared/openapi/README.md, "Answers the spec
 * does not give"): a 429 is a rate limit, whatever the spec says (wait, never park); an HTML page with
 * a 2xx is a maintenance page, an outage like a 5xx. Undefined: an answer of the service's own.
 */
function gatewayAnswer(
  req: FailedRequest,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  bodyText: string,
  nowMs: number,
): OpenApiError | undefined {
  if (status === 429) {
    const retryAfter = retryAfterMs(headers, nowMs);
    const messages = [retryAfter === undefined ? 'rate limited (no Retry-After)' : `rate limited (Retry-After ${retryAfter} ms)`];
    return new OpenApiError({ kind: 'rate_limited', status, executed: 'no', messages, route: req.route, retryAfterMs: retryAfter });
  }
  if (status < 300 && isHtmlPage(bodyText)) {
    // Nothing proves the operation did not run: reconciled like any 5xx.
    return new OpenApiError({
      kind: 'server',
      status,
      executed: 'unknown',
      messages: ["an HTML page, not the service's answer"],
      route: req.route,
    });
  }
  return undefined;
}

/**
 * A 2xx that is not the service's answer (an HTML maintenance page); undefined for any other 2xx, which
 * the endpoint's schema then reads.
 */
export function classifySuccess(req: FailedRequest, status: number, bodyText: string): OpenApiError | undefined {
  return gatewayAnswer(req, status, {}, bodyText, 0);
}

/** Classifies a non-2xx answer. `nowMs` dates a Retry-After given as an HTTP date. */
export function classifyAnswer(
  req: FailedRequest,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  bodyText: string,
  nowMs: number = Date.now(),
): OpenApiError {
  const gateway = gatewayAnswer(req, status, headers, bodyText, nowMs);
  if (gateway) return gateway;
  const body = record(parseJsonOrUndefined(bodyText));
  const messages = flattenMessages(body?.errors);
  const allErrors = flattenMessages(body?.all_errors);
  for (const m of allErrors) if (!messages.includes(m)) messages.push(m);
  const errorCode = typeof body?.error_code === 'string' ? body.error_code : undefined;
  const bearerInvalid = /error="invalid_token"/.test(String(headers['www-authenticate'] ?? ''));
  const kind: OpenApiErrorKind = status >= 500 ? 'server' : clientErrorKind(req, status, body, messages, bearerInvalid);
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
  TIMEOUT_CODE.connect,
  // The request could not be built (e.g. a header value with a line break): never sent.
  'ERR_INVALID_CHAR',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_HTTP_INVALID_HEADER_VALUE',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
  'ERR_UNESCAPED_CHARACTERS',
  // A kept-alive socket the server had closed before any byte of the request was written (transport.ts).
  'STALE_SOCKET',
]);

function errorCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const cause = (e as { cause?: unknown } | null)?.cause;
  return cause && cause !== e ? errorCode(cause) : undefined;
}

/** Timeouts of one phase, the call's overall deadline, and an abort (the caller's signal). */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([...Object.values(TIMEOUT_CODE), 'CALL_DEADLINE', 'ABORTED']);

/** Classifies a transport failure (no usable answer). */
export function classifyTransportError(req: FailedRequest, e: unknown): OpenApiError {
  if (e instanceof AnswerTooLargeError) {
    // The status came: a 4xx still proves a refusal; a 2xx ran; a 5xx proves nothing.
    const executed: Executed = e.status >= 400 && e.status < 500 ? 'no' : 'unknown';
    return new OpenApiError({ kind: 'invalid_response', executed, status: e.status, messages: [e.message], route: req.route });
  }
  const code = errorCode(e) ?? (isAbort(e) ? 'ABORTED' : 'UNKNOWN');
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
