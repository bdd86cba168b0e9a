/**
 * The one HTTP client stack for every upstream we call (the Open API, and the shop-side APIs): node:http
 * with keep-alive, an overall deadline per call, connect/headers/idle-body timeouts and an answer cap.
 */
export {
  AnswerTooLargeError,
  CallDeadlineError,
  HttpClientError,
  ShopApiError,
  StaleSocketError,
  type ShopApiErrorKind,
  TIMEOUT_CODE,
  type TimeoutCode,
} from './errors.js';
export {
  createTransport,
  DEFAULT_CALL_DEADLINE_MS,
  DEFAULT_MAX_ANSWER_BYTES,
  DEFAULT_TIMEOUTS,
  DEFAULT_USER_AGENT,
  type HttpAnswer,
  type HttpRequest,
  type Timeouts,
  type Transport,
} from './transport.js';
export {
  DEFAULT_MAX_WAIT_MS,
  isRetryableStatus,
  type RetryOptions,
  retryDelayMs,
  sendRetrying,
  sleepMs,
  throughBreaker,
} from './retries.js';
