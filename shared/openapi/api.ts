/** What the Open API client offers and how it is configured (shared/openapi/client.ts builds it). */
import type { CallLimiter } from './rate-limiter.js';
import type { SendWindow } from './send-window.js';
import type { CredentialsProvider } from './credentials.js';
import type {
  ExpiryPage,
  MemberDetail,
  MemberInput,
  MemberList,
  PointCalculationInput,
  PointGrantInput,
  PointHistoryPage,
} from './schemas.js';
import { DEFAULT_CALL_DEADLINE_MS, type Timeouts } from '../http-client/index.js';

export interface OpenApiClientOptions {
  credentials: CredentialsProvider;
  /** Default `loyalty-points-bridge/<package version>`. */
  userAgent?: string;
  /** Defaults: connect 3000 ms, headers 10000 ms, body 10000 ms. */
  timeouts?: Timeouts;
  /**
   * The deployment's shared upstream budget (createSharedBudget over the ledger table): every call of
   * every container draws from it. Without it, a per-container limiter at `ratePerMinute`.
   */
  upstreamBudget?: CallLimiter;
  /**
   * Told of every request as it is sent (each attempt, the token's too), by its endpoint's name
   * (`calculatePoints`, `token`): the functions count them as `UpstreamCalls_<name>`, the figure the
   * dashboard and the budget alarm read.
   */
  onSend?: (operation: string) => void;
  /** Without `upstreamBudget`: requests per minute per endpoint this client may send (default 2000, the spec's ceiling). */
  ratePerMinute?: number;
  /** Extra attempts of a GET after a network error, timeout or 5xx (default 2). Writes are never retried. */
  readRetries?: number;
  /** First backoff step of read retries in ms (default 100); each step doubles, full jitter. */
  retryBaseMs?: number;
  /**
   * Overall deadline of one HTTP exchange, connect to last body byte (default 10000 ms): the
   * per-phase timeouts alone let a trickled answer run on for ever.
   */
  callTimeoutMs?: number;
  /** Largest answer body read (default 1 MiB); a longer one is cut off as `invalid_response`. */
  maxAnswerBytes?: number;
  /**
   * Time left to the caller (the Lambda invocation's remaining time less a margin), read before each
   * exchange: no call starts with less than `minCallMs` left, and none runs past it.
   */
  remainingMs?: () => number | undefined;
  /** Least time a call may start with (default 1000 ms). */
  minCallMs?: number;
  /**
   * Times a call waits out a 429 and sends again (default 3), each wait its Retry-After (else the
   * backoff). A wait longer than `rateLimitMaxWaitMs` (default 10000) or than the time left is not
   * made: the `rate_limited` error goes to the caller, whose event waits in the queue.
   */
  rateLimitWaits?: number;
  rateLimitMaxWaitMs?: number;
  /**
   * Whose token the client uses: clients of one scope share one cached token, as every client of a
   * container does (the default: the container's). `npm start` gives each of its workers a scope of its
   * own, as separate containers would have.
   */
  tokenScope?: string;
  /** Clock for token expiry and the limiter (ms). */
  now?: () => number;
  /** How the limiter and retry backoff wait (tests and benchmarks pair it with `now`). */
  sleep?: (ms: number) => Promise<void>;
}

export interface PageQuery {
  page?: number;
  perPage?: number;
}

export interface OpenApiClient {
  listMembers(q?: PageQuery): Promise<MemberList>;
  getMember(id: string, q?: { withColumnKey?: boolean }): Promise<MemberDetail>;
  getMemberByUniqueId(uniqueId: string, q?: { withColumnKey?: boolean }): Promise<MemberDetail>;
  getMemberByExternalId(externalKey: string, externalId: string): Promise<MemberDetail>;
  /** Not idempotent; `window`: the lease it is sent under (send-window.ts). */
  registerMember(input: MemberInput, window?: SendWindow): Promise<MemberDetail>;
  updateMember(id: string, input: MemberInput): Promise<MemberDetail>;
  deleteExternalId(id: string, externalKey: string): Promise<void>;
  login(input: { loginId: string; password: string }): Promise<MemberDetail>;
  logout(id: string): Promise<void>;
  resign(id: string, columns?: Record<string, string>): Promise<void>;
  /** Newest first. */
  listPoints(id: string, q?: PageQuery): Promise<PointHistoryPage>;
  /** Nearest expiry first. */
  listPointExpiries(id: string, q?: PageQuery): Promise<ExpiryPage>;
  /** Not idempotent: on an error with `executed: 'unknown'` the points may have been granted. */
  grantPoints(id: string, input: PointGrantInput, window?: SendWindow): Promise<MemberDetail>;
  /** Not idempotent: on an error with `executed: 'unknown'` the points may have been granted. */
  calculatePoints(id: string, input: PointCalculationInput, window?: SendWindow): Promise<MemberDetail>;
  checkHandoverToken(token: string, id: string): Promise<void>;
  /** Closes the connection pools. */
  close(): Promise<void>;
}

/** Default overall deadline of one exchange: the HTTP stack's, shared with the shop-side clients. */
export const DEFAULT_CALL_TIMEOUT_MS = DEFAULT_CALL_DEADLINE_MS;
/** Default least time left for a call to start. */
export const DEFAULT_MIN_CALL_MS = 1_000;
