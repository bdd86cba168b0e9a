import { isOutageKind, OUTAGE_ERROR_KINDS, type OutageErrorKind, UNSENT_ERROR_KINDS } from '../retry/index.js';
/**
 * The one error every client failure becomes. Callers branch on `kind` and `executed`; nothing
 * downstream reads message strings (the classification from texts happens once, in classify.ts).
 */
import { capText } from '../text/index.js';
import { KindedError } from '../errors/index.js';

export const OPEN_API_ERROR_KINDS = [
  'member_not_found',
  'not_contracted',
  'insufficient_points',
  'points_not_available',
  'external_id_not_found',
  /** 400 without a meaning the spec fixes: the spec's "invalid request parameters". */
  'validation',
  /** A 4xx the spec never gives (403, 409, 422, ...): no meaning can be read from it. */
  'unrecognised',
  /** 429 from whatever stands in front of the service: wait (`retryAfterMs`) and send again; never parked. */
  'rate_limited',
  'handover_token_expired',
  'handover_token_invalid',
  'invalid_token',
  'method_not_allowed',
  'not_found',
  'server',
  'network',
  'timeout',
  /** Refused by the client before anything was sent (bad path parameter, bad input). */
  'invalid_request',
  /**
   * Refused by the client before sending: the lease the write would be sent under leaves too little
   * time (send-window.ts). Ours, not the service's: the breaker and the upstream alarm do not count it.
   */
  'lease_window_closed',
  /**
   * Refused by the client before sending: the deployment's upstream budget has no slot for the call
   * within the time the caller has (`retryAfterMs`: until the minute a slot is expected). Waiting, not
   * failing: the breaker and the upstream alarm do not count it, the event is deferred to that minute.
   */
  'budget_spent',
  /** An answer came but is not what the spec describes (not JSON, wrong shape). */
  'invalid_response',
  /** The token endpoint refused the client credentials (400/401), even after re-reading them. */
  'authentication_failed',
  /** The credentials provider failed (Secrets Manager unreachable, secret malformed). */
  'credentials_unavailable',
] as const;

export type OpenApiErrorKind = (typeof OPEN_API_ERROR_KINDS)[number];

/**
 * Kinds that say the service itself is down or overloaded, not an answer about the request: the
 * pipeline retries them within a call, the circuit breaker counts them. Defined with the breaker
 * (shared/retry), held here to the Open API's spelling.
 */
OUTAGE_ERROR_KINDS satisfies readonly OpenApiErrorKind[];
UNSENT_ERROR_KINDS satisfies readonly OpenApiErrorKind[];
export { isOutageKind, OUTAGE_ERROR_KINDS, type OutageErrorKind };

/** Whether a failed call says the service is down: an Open API outage kind, or anything that is not an answer of it. */
export const isOutageError = (e: unknown): boolean => (isOpenApiError(e) ? isOutageKind(e.kind) : true);

/**
 * Kinds that people fix (the contract, the credentials, a request we build wrongly): processing ends
 * them as `configuration_error`, dead-lettered and redriven after the fix.
 */
export const CONFIGURATION_ERROR_KINDS = [
  'not_contracted',
  'invalid_token',
  'authentication_failed',
  'validation',
  'invalid_request',
  'method_not_allowed',
  'not_found',
] as const satisfies readonly OpenApiErrorKind[];
export type ConfigurationErrorKind = (typeof CONFIGURATION_ERROR_KINDS)[number];

/** Whether an error kind is one people fix rather than one that passes. */
export const isConfigurationKind = (kind: string): kind is ConfigurationErrorKind =>
  (CONFIGURATION_ERROR_KINDS as readonly string[]).includes(kind);

/**
 * The error kinds that mean the membership service failed us: unreachable or faulty, refusing our
 * credentials or contract, or answering outside its documented answers (`invalid_response`, see
 * shared/openapi/README.md). The others are answers about the request (customer unknown, not enough
 * points, validation...): the service worked, so the upstream failure rate alarm must not count them.
 */
export const UPSTREAM_FAILURE_KINDS = [
  ...OUTAGE_ERROR_KINDS,
  'invalid_token',
  'authentication_failed',
  'credentials_unavailable',
  'not_contracted',
  'invalid_response',
  'method_not_allowed',
  'not_found',
] as const satisfies readonly OpenApiErrorKind[];

/** Whether a failed call's error kind is a failure of the upstream service (see UPSTREAM_FAILURE_KINDS). */
export const isUpstreamFailureKind = (kind: string): boolean => (UPSTREAM_FAILURE_KINDS as readonly string[]).includes(kind);

/** `no`: the answer proves the operation did not run. `unknown`: it may have run. */
export type Executed = 'no' | 'unknown';

export interface OpenApiErrorDetails {
  kind: OpenApiErrorKind;
  executed: Executed;
  status?: number | undefined;
  errorCode?: string | undefined;
  messages?: string[];
  /** Method and path template, e.g. `POST /api/ext/users/{id}/points` (never ids, never secrets). */
  route?: string;
  /** rate_limited: the answer's Retry-After in ms, when it gave one; budget_spent: until a slot is expected. */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/** At most this many upstream messages are kept (each capped by capText); the rest are counted. */
const MAX_MESSAGES = 10;

function cappedMessages(messages: string[] | undefined): string[] {
  if (!messages) return [];
  const kept = messages.slice(0, MAX_MESSAGES).map((m) => capText(m, 256));
  if (messages.length > MAX_MESSAGES) kept.push(`(${messages.length - MAX_MESSAGES} more messages)`);
  return kept;
}

/** The root of this module's errors: each has a `kind` to branch on and its class's `name`. */
export abstract class OpenApiModuleError extends KindedError {
  override readonly name: string = 'OpenApiModuleError';
}

export class OpenApiError extends OpenApiModuleError {
  override readonly name = 'OpenApiError';
  readonly kind: OpenApiErrorKind;
  readonly status: number | undefined;
  readonly errorCode: string | undefined;
  readonly messages: string[];
  readonly executed: Executed;
  readonly route: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(d: OpenApiErrorDetails) {
    const where = d.route ? `${d.route}: ` : '';
    const status = d.status === undefined ? '' : ` (HTTP ${d.status}${d.errorCode ? ` ${d.errorCode}` : ''})`;
    // Upstream texts are the service's (or an impostor's): bounded before they reach logs and the ledger.
    const messages = cappedMessages(d.messages);
    const texts = messages.length > 0 ? `: ${messages.join('; ')}` : '';
    super(capText(`${where}${d.kind}${status}${texts}`), d.cause === undefined ? undefined : { cause: d.cause });
    this.kind = d.kind;
    this.status = d.status;
    this.errorCode = d.errorCode;
    this.messages = messages;
    this.executed = d.executed;
    this.route = d.route;
    this.retryAfterMs = d.retryAfterMs;
  }
}

export function isOpenApiError(e: unknown): e is OpenApiError {
  return e instanceof OpenApiError;
}

/** Thrown when a display value or custom-field value is not in the form the spec describes. */
export class ValueFormatError extends OpenApiModuleError {
  override readonly name = 'ValueFormatError';
  readonly kind = 'value_format' as const;
}
