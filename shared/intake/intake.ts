import { DEFAULT_LEDGER_TTL_DAYS, type WebhookSecrets } from '../config/index.js';
import { QueuedEvent } from '../events/index.js';
import type { Logger } from '../logging/index.js';
import type { KeepResult, QuarantineInput } from '../quarantine/index.js';
import { type EventQueue, queueMessageFor, sendAll } from '../queue/index.js';
import {
  type ConfiguredSource,
  type RequestHeaders,
  type SignedRequest,
  type SourceError,
  type SourceSet,
  unsafeCustomerId,
  type VersionMismatch,
} from '../sources/index.js';
import { readBody } from './body.js';
import { replayWindowDays } from './config.js';
import { invalidHeader } from './headers.js';
import { fromFutureProblem, tooOldReason } from './replay.js';

/** A webhook request, whatever carried it (API Gateway, the local HTTP server, a test). */
export interface IntakeRequest {
  /** The source named by the URL (`/webhooks/<source>`); undefined when the URL names none. */
  readonly source: string | undefined;
  readonly method: string;
  readonly headers: RequestHeaders;
  readonly body: string | undefined;
  readonly isBase64Encoded: boolean;
}

export type IntakeErrorKind =
  | SourceError['kind']
  | 'unknown_source'
  | 'method_not_allowed'
  | 'body_too_large'
  | 'malformed_body'
  | 'invalid_header'
  | 'not_configured'
  | 'unavailable';

/** What the sender is told. Nothing in it comes from a secret or from the body's content. */
export type IntakeAnswer =
  | { readonly status: 'accepted'; readonly eventId: string }
  | { readonly status: 'ignored'; readonly reason: string }
  /** Authentic but unreadable: kept for replay (`npm run quarantine`), answered 200 so the sender stops. */
  | { readonly status: 'quarantined'; readonly id: string; readonly reason: string }
  | { readonly error: { readonly kind: IntakeErrorKind; readonly message: string; readonly path?: string } };

export interface IntakeResponse {
  readonly statusCode: number;
  readonly answer: IntakeAnswer;
  /** Accepted deliveries: the event's type (for the delivery metrics; not sent to the sender). */
  readonly eventType?: string;
  /** An authentic delivery made with another API version than the source's setting (counted, logged). */
  readonly apiVersionMismatch?: VersionMismatch;
}

export const STATUS_OF: Readonly<Record<IntakeErrorKind, number>> = {
  unknown_source: 404,
  method_not_allowed: 405,
  body_too_large: 413,
  malformed_body: 400,
  invalid_header: 400,
  missing_signature: 401,
  invalid_signature: 401,
  stale_timestamp: 401,
  malformed_json: 400,
  wrong_contract: 403,
  invalid_payload: 422,
  // Our side: the sender should retry (Shopify and the POS do on 5xx) while it is fixed.
  not_configured: 500,
  unavailable: 503,
};

/** The logger intake takes: the one shape of shared/logging (Powertools' Logger fits). */
export type IntakeLogger = Logger;

export interface IntakeDeps {
  readonly sources: SourceSet;
  readonly secrets: WebhookSecrets;
  readonly queue: EventQueue;
  /** Epoch milliseconds. */
  readonly now: () => number;
  readonly maxBodyBytes: number;
  readonly logger?: IntakeLogger;
  /** Events older than this many days are ignored (default: from the default ledger retention). */
  readonly replayWindowDays?: number;
  /** Keeps authentic deliveries a source cannot read (sources with quarantinesUnreadable). */
  readonly quarantine?: { keep(input: QuarantineInput): Promise<KeepResult> };
  /**
   * Counts a new quarantine entry (QuarantinedDeliveries, and QuarantinedBodiesNotKept when its body was
   * over the item limit: both alarmed). A re-delivery of an entry is not counted again.
   */
  readonly countQuarantined?: (source: string, entry: { bodyKept: boolean }) => void;
}

const DEFAULT_REPLAY_WINDOW_DAYS = replayWindowDays(DEFAULT_LEDGER_TTL_DAYS);

function refuse(kind: IntakeErrorKind, message: string, path?: string): IntakeResponse {
  return { statusCode: STATUS_OF[kind], answer: { error: { kind, message, ...(path ? { path } : {}) } } };
}

function errorKind(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'kind' in e && typeof e.kind === 'string' ? e.kind : undefined;
}

/**
 * Verifies, reads and queues one webhook delivery; an authentic one (accepted, ignored or
 * quarantined) made with another API version than its source's setting is marked for the delivery
 * metrics and logged: the sender's subscription or the stage setting is out of date.
 */
export async function receiveWebhook(request: IntakeRequest, deps: IntakeDeps): Promise<IntakeResponse> {
  const source = request.source === undefined ? undefined : deps.sources.get(request.source);
  if (!source) return refuse('unknown_source', 'no such webhook source');
  const response = await receiveDelivery(request, source, deps);
  if ('error' in response.answer) return response;
  const mismatch = source.versionMismatch?.(request.headers);
  if (mismatch === undefined) return response;
  deps.logger?.warn('webhook API version differs from the source setting', { source: source.name, ...mismatch });
  return { ...response, apiVersionMismatch: mismatch };
}

/**
 * Verifies, reads and queues one webhook delivery. Order matters: nothing reads the body before
 * its signature is verified, and nothing is queued unless every check passed.
 */
async function receiveDelivery(request: IntakeRequest, source: ConfiguredSource, deps: IntakeDeps): Promise<IntakeResponse> {
  const log = deps.logger;
  if (request.method.toUpperCase() !== 'POST') return refuse('method_not_allowed', 'use POST');

  // A sender's own limit (Shopify's orders can be large) wins over the default: never refuse what it sends.
  const body = readBody(request.body, request.isBase64Encoded, Math.max(deps.maxBodyBytes, source.maxBodyBytes ?? 0));
  if (!body.ok) return refuse(body.kind, body.message);
  const receivedAtMs = deps.now();
  const signed: SignedRequest = { rawBody: body.bytes, headers: request.headers, receivedAtMs };

  type Secrets = { ok: true; secrets: readonly string[] } | { ok: false; response: IntakeResponse };
  const readSecrets = async (forceRefresh: boolean): Promise<Secrets> => {
    try {
      return { ok: true, secrets: await deps.secrets.get(source.name, { forceRefresh }) };
    } catch (e) {
      const kind = errorKind(e) === 'unavailable' ? 'unavailable' : 'not_configured';
      log?.error('webhook secrets unusable', { source: source.name, kind, error: e instanceof Error ? e.message : 'unknown' });
      return { ok: false, response: refuse(kind, kind === 'unavailable' ? 'try again later' : 'the webhook source is not configured') };
    }
  };
  const cached = await readSecrets(false);
  if (!cached.ok) return cached.response;
  let failure = source.verify(signed, { secrets: cached.secrets, nowMs: deps.now() });
  if (failure?.kind === 'invalid_signature') {
    // Perhaps the secret was rotated since we read it: read again (rate-limited) and retry once.
    const fresh = await readSecrets(true);
    if (!fresh.ok) return fresh.response;
    if (fresh.secrets.join('\n') !== cached.secrets.join('\n')) {
      failure = source.verify(signed, { secrets: fresh.secrets, nowMs: deps.now() });
    }
  }
  if (failure) {
    log?.warn('webhook refused', { source: source.name, kind: failure.kind });
    return refuse(failure.kind, failure.message);
  }

  // Unsigned headers, checked before a source reads them (the queue's deduplication id is one).
  const badHeader = invalidHeader(request.headers);
  if (badHeader) {
    log?.warn('webhook refused', { source: source.name, kind: 'invalid_header', path: badHeader.path });
    return refuse('invalid_header', badHeader.message, badHeader.path);
  }
  /** An authentic delivery we cannot read: kept and answered 200 where the source asks for it, else refused. */
  const unreadable = async (error: SourceError): Promise<IntakeResponse> => {
    if (!source.quarantinesUnreadable || !deps.quarantine) {
      log?.warn('webhook refused', { source: source.name, kind: error.kind, path: error.path });
      return refuse(error.kind, error.message, error.path);
    }
    let kept: KeepResult;
    try {
      kept = await deps.quarantine.keep({ source: source.name, headers: request.headers, rawBody: body.bytes, reason: error });
    } catch (e) {
      // Not kept: the sender must retry (5xx), never be told it was taken.
      log?.error('quarantine failed', { source: source.name, kind: error.kind, error: e instanceof Error ? e.message : 'unknown' });
      return refuse('unavailable', 'try again later');
    }
    const fields = { source: source.name, quarantineId: kept.id, kind: error.kind, path: error.path };
    if (kept.delivery === 'first') {
      deps.countQuarantined?.(source.name, { bodyKept: kept.bodyKept });
      log?.error('webhook quarantined', { ...fields, bodyKept: kept.bodyKept });
    } else {
      // The entry exists and is alarmed already: a re-sent capture must not flood the alarm or the error log.
      log?.warn('webhook quarantined again', { ...fields, counted: kept.delivery === 'repeat' });
    }
    return { statusCode: 200, answer: { status: 'quarantined', id: kept.id, reason: error.message } };
  };

  const outcome = source.readMany(signed);
  if (outcome.status === 'ignored') {
    log?.info('webhook ignored', { source: source.name, reason: outcome.reason });
    return { statusCode: 200, answer: { status: 'ignored', reason: outcome.reason } };
  }
  if (outcome.status === 'rejected') return unreadable(outcome.error);

  const events: QueuedEvent[] = [];
  // What intake knows of the delivery travels in each message (the activity record: shared/activity/carry.ts).
  const receivedAt = new Date(receivedAtMs).toISOString();
  for (const value of outcome.value) {
    const checked = checkEvent(value, deps);
    if ('error' in checked) return unreadable(checked.error);
    if ('ignored' in checked) {
      log?.warn('webhook ignored', { source: source.name, kind: 'too_old', eventId: checked.eventId, occurredAt: checked.occurredAt });
      return { statusCode: 200, answer: { status: 'ignored', reason: checked.ignored } };
    }
    events.push({ ...checked.event, delivery: { ...checked.event.delivery, receivedAt } } as QueuedEvent);
  }
  // Every event durably queued before the sender is told, in batches of 10 where the queue takes them (a
  // Smaregi delivery names up to 1,000 transactions): a failure part way answers 5xx, the sender retries,
  // and the copies already queued are dropped by SQS's deduplication or by the ledger.
  try {
    await sendAll(deps.queue, events.map(queueMessageFor));
  } catch (e) {
    log?.error('queue send failed', { source: source.name, events: events.length, error: e instanceof Error ? e.message : 'unknown' });
    return refuse('unavailable', 'try again later');
  }
  for (const event of events) {
    log?.info('webhook accepted', { source: source.name, eventId: event.eventId, type: event.type, deliveryId: event.delivery.id });
  }
  const first = events[0] as QueuedEvent;
  return { statusCode: 202, answer: { status: 'accepted', eventId: first.eventId }, eventType: first.type };
}

type Checked = { event: QueuedEvent } | { error: SourceError } | { ignored: string; eventId: string; occurredAt: string };

/** The canonical schema is the contract with processing: nothing off-contract enters the queue. */
function checkEvent(value: QueuedEvent, deps: IntakeDeps): Checked {
  const checked = QueuedEvent.safeParse(value);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const path = ['event', ...(issue?.path ?? []).map(String)].join('.');
    return { error: { kind: 'invalid_payload', message: `${path}: ${issue?.message ?? 'invalid'}`, path } };
  }
  const event = checked.data;
  const unsafe = unsafeCustomerId(event);
  if (unsafe) return { error: { kind: 'invalid_payload', message: `${unsafe.path}: ${unsafe.problem}`, path: unsafe.path } };
  const future = fromFutureProblem(event, deps.now());
  if (future) return { error: { kind: 'invalid_payload', ...future } };
  const tooOld = tooOldReason(event, deps.now(), deps.replayWindowDays ?? DEFAULT_REPLAY_WINDOW_DAYS);
  if (tooOld) return { ignored: tooOld, eventId: event.eventId, occurredAt: event.occurredAt ?? '' };
  return { event };
}
