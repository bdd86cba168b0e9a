import { KindedError } from '../errors/index.js';

/** The transport's failures: typed, each with a `kind`, and the `code` callers classify by. */

/**
 * The codes of this transport's own timeouts, one per phase: a connect timeout means nothing was sent,
 * the others that the request may have run (callers classify by them; Node's own codes, such as
 * ECONNREFUSED or ECONNRESET, come through as Node raises them).
 */
export const TIMEOUT_CODE = {
  connect: 'CONNECT_TIMEOUT',
  headers: 'HEADERS_TIMEOUT',
  body: 'BODY_TIMEOUT',
} as const;
export type TimeoutCode = (typeof TIMEOUT_CODE)[keyof typeof TIMEOUT_CODE];

/** The root of the transport's errors and the shop-side API clients' (ShopApiError). */
export abstract class HttpClientError extends KindedError {
  override readonly name: string = 'HttpClientError';
}

/** The reason a call's overall deadline aborts it. */
export class CallDeadlineError extends HttpClientError {
  override readonly name = 'CallDeadlineError';
  readonly kind = 'call_deadline' as const;
  readonly code = 'CALL_DEADLINE';
  constructor(readonly ms: number) {
    super(`no complete answer within ${ms} ms`);
  }
}

/** An answer body over the cap: the transfer is cut off; the status came and is kept. */
export class AnswerTooLargeError extends HttpClientError {
  override readonly name = 'AnswerTooLargeError';
  readonly kind = 'answer_too_large' as const;
  readonly code = 'ANSWER_TOO_LARGE';
  constructor(
    readonly status: number,
    readonly maxBytes: number,
  ) {
    super(`answer larger than ${maxBytes} bytes`);
  }
}

/**
 * A reused keep-alive socket that the server had closed before a byte of this request was written on it
 * (its FIN came while nothing of ours was on the wire): the request provably never reached the server,
 * so its code is a "not sent" one. Any other reset on a reused socket proves nothing (the server may have
 * read the request and be running it).
 */
export class StaleSocketError extends HttpClientError {
  override readonly name = 'StaleSocketError';
  readonly kind = 'stale_socket' as const;
  readonly code = 'STALE_SOCKET';
  constructor() {
    super('the kept-alive connection was closed by the server before the request was written');
  }
}

/** A transport failure with the code callers classify by. */
export class TransportError extends HttpClientError {
  override readonly name = 'TransportError';
  readonly kind = 'timeout' as const;
  constructor(
    readonly code: TimeoutCode,
    message: string,
  ) {
    super(message);
  }
}

/** Why a shop-side API call failed (Square Orders, Smaregi): `unavailable` is worth retrying later, the others need people. */
export type ShopApiErrorKind = 'unavailable' | 'unauthorized' | 'not_found' | 'invalid_response';

/** The one shape of a shop-side API client's failure; each client names its own subclass. */
export class ShopApiError extends HttpClientError {
  override readonly name: string = 'ShopApiError';
  constructor(
    readonly kind: ShopApiErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}
