import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { PointsEvent } from '../../events/index.js';
import { SmaregiStateFrom, type SmaregiThinEvent } from './thin.js';
import { header } from '../headers.js';
import { parseJsonBody } from '../json.js';
import { renderTitle } from '../settings.js';
import { macEquals } from '../signature.js';
import type { Outcome, SignedRequest, SourceError, VerifyOptions, WebhookSource } from '../types.js';
import { ignored, ok, rejected } from '../types.js';
import { lazyObject, lazySchema } from '../../schema/index.js';
import { SmaregiSettings, smaregiCustomerLinking } from './settings.js';

export { DEFAULT_SMAREGI_WEBHOOK_HEADER, SmaregiSettings } from './settings.js';

/**
 * Smaregi Platform API webhooks (`pos:transactions`): ids only, no signature. The app chooses a header
 * name and value in Smaregi's developer console and Smaregi sends it with every delivery: that value
 * is this source's webhook secret (at least 32 characters), compared in constant time. A delivery for
 * another contract is refused (403). Each transaction id becomes one thin event; the worker fetches the
 * transaction's current state and acts on it (state.ts, in the worker), whatever the action.
 */

const TransactionId = lazySchema(() => z.string().regex(/^[0-9]{1,20}$/, 'expected a transaction id: 1-20 digits as a string'));
/**
 * What every delivery of the app's one webhook URL must carry: its contract (checked strictly). The rest
 * is read leniently (Smaregi must not see failures for what we merely do not use): another event, an
 * action we do not know (`bulk-deleted`, `bulk-update`...) or a body without transaction ids is answered
 * 200 `ignored` and logged, never 400.
 */
const Envelope = lazyObject(z.looseObject, () => ({
  contractId: z.string().min(1).max(64),
  event: z.unknown().optional(),
  action: z.unknown().optional(),
  transactionHeadIds: z.unknown().optional(),
}));
export const SmaregiWebhook = lazyObject(z.object, () => ({
  contractId: z.string().min(1).max(64),
  event: z.string().min(1).max(64),
  action: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected an action such as "created"'),
  transactionHeadIds: z.array(TransactionId).min(1).max(1000),
}));
export type SmaregiWebhook = z.infer<typeof SmaregiWebhook> & { deliveryKey: string; receivedAt: string };
/** One delivery fans out to at most this many messages (docs/smaregi.md, "Past the cap"). */
const MAX_IDS_PER_DELIVERY = 1000;
const TransactionIds = lazySchema(() => z.array(TransactionId).min(1).max(MAX_IDS_PER_DELIVERY));
/** An action's name goes into the delivery's topic: a plain name is read (any action: the transaction's state decides). */
const SAFE_ACTION = /^[A-Za-z0-9_-]{1,64}$/;

export const SMAREGI_TRANSACTIONS_EVENT = 'pos:transactions';
const EVENT_ID = /^[A-Za-z0-9-]{1,64}$/;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

function verify(request: SignedRequest, options: VerifyOptions, settings: SmaregiSettings): SourceError | null {
  const value = header(request.headers, settings.webhookHeader);
  if (!value) return { kind: 'missing_signature', message: `${settings.webhookHeader} header is missing` };
  // Digests of both sides: equal lengths for the constant-time comparison, whatever was sent.
  const claimed = digest(value);
  return options.secrets.some((secret) => macEquals(digest(secret), claimed))
    ? null
    : { kind: 'invalid_signature', message: `${settings.webhookHeader} does not match` };
}

const malformed = (message: string): SourceError => ({ kind: 'malformed_json', message });

function parse(request: SignedRequest, settings: SmaregiSettings): Outcome<SmaregiWebhook> {
  const json = parseJsonBody(request.rawBody);
  if (!json.ok) return rejected(json.error);
  const envelope = Envelope.safeParse(json.value);
  if (!envelope.success) {
    const issue = envelope.error.issues[0];
    return rejected(malformed(`not a Smaregi webhook: ${issue?.path.join('.') || '(body)'}: ${issue?.message ?? 'invalid'}`));
  }
  const contractHeader = header(request.headers, 'smaregi-contract-id');
  if (envelope.data.contractId !== settings.contractId || (contractHeader !== undefined && contractHeader !== settings.contractId)) {
    return rejected({ kind: 'wrong_contract', message: 'this delivery is for another Smaregi contract' });
  }
  const { event, action, transactionHeadIds } = envelope.data;
  // Only names this source knows are repeated, never other body content.
  if (event !== SMAREGI_TRANSACTIONS_EVENT) return ignored('event is not handled (only pos:transactions)');
  if (typeof action !== 'string' || !SAFE_ACTION.test(action)) return ignored('pos:transactions without a readable action');
  // Past the cap is sales we would use but will not fan out in one answer: refused, so the sender sees it
  // (and the reconcile credits them), never acknowledged as if there were nothing to do.
  if (Array.isArray(transactionHeadIds) && transactionHeadIds.length > MAX_IDS_PER_DELIVERY)
    return rejected(malformed(`transactionHeadIds: Too big: expected array to have <=${MAX_IDS_PER_DELIVERY} items`));
  const ids = TransactionIds.safeParse(transactionHeadIds);
  if (!ids.success) return ignored('pos:transactions without transaction ids (transactionHeadIds)');
  const body = { data: { contractId: envelope.data.contractId, event, action, transactionHeadIds: ids.data } };
  const eventId = header(request.headers, 'smaregi-event-id');
  const deliveryKey =
    eventId && EVENT_ID.test(eventId) ? eventId : `sha256-${digest(request.rawBody.toString('utf8')).toString('hex').slice(0, 32)}`;
  const receivedAt = new Date(request.receivedAtMs ?? Date.now()).toISOString();
  return ok({ ...body.data, deliveryKey, receivedAt });
}

function thinEvent(payload: SmaregiWebhook, id: string, source: string, settings: SmaregiSettings): SmaregiThinEvent {
  return {
    type: 'purchase',
    eventId: `${source}:transaction:${id}`,
    source,
    orderId: id,
    customer: null,
    currency: 'JPY',
    occurredAt: payload.receivedAt,
    pointTitle: renderTitle(settings.pointTitle, { order: id, orderId: id, source }),
    test: false,
    delivery: {
      id: `${payload.deliveryKey}:${id}`,
      topic: `${payload.event}/${payload.action}`,
      eventId: payload.deliveryKey,
      triggeredAt: payload.receivedAt,
    },
    eligibleAmount: 0,
    expiryDays: settings.expiryDays,
    stateFrom: {
      kind: 'smaregi_transaction',
      transactionHeadId: id,
      externalKey: settings.externalKey,
      customerField: settings.customerField,
      pointsSpent: settings.pointsSpent,
      rule: settings.amount.rule,
      pointTitle: settings.pointTitle,
      refundTitle: settings.refundTitle,
      earningDivisions: settings.earningDivisions,
      storeIds: settings.storeIds,
      memberLookup: settings.memberLookup,
      lateMemberDays: settings.lateMemberDays,
      tillPoints: settings.tillPoints,
      returns: settings.returns,
      returnWindowDays: settings.returnWindowDays,
      ...(settings.earnAfter === 'paid' ? {} : { earnAfterDays: settings.earnAfter.days }),
    },
  };
}

/** One thin event per transaction id (a delivery may name several; each is queued on its own). */
function normaliseMany(payload: SmaregiWebhook, context: { source: string; settings: SmaregiSettings }): Outcome<PointsEvent[]> {
  const ids = [...new Set(payload.transactionHeadIds)];
  return ok(ids.map((id) => thinEvent(payload, id, context.source, context.settings)));
}

export const smaregiSource: WebhookSource<SmaregiSettings, SmaregiWebhook> = {
  kind: 'smaregi',
  settingsSchema: SmaregiSettings,
  customerLinking: smaregiCustomerLinking,
  verify,
  parse,
  normalise(payload, context) {
    const all = normaliseMany(payload, context);
    if (all.status !== 'ok') return all;
    const first = all.value[0];
    return first ? ok(first) : ignored('no transaction ids');
  },
  normaliseMany,
  thinPart: { key: 'stateFrom', kind: 'smaregi_transaction', schema: SmaregiStateFrom },
};

/** A thin event for a transaction id (the reconcile feeds missed transactions in with these). */
export function smaregiThinEvent(id: string, source: string, settings: SmaregiSettings, nowMs: number, reason: string): SmaregiThinEvent {
  const payload = {
    contractId: settings.contractId,
    event: SMAREGI_TRANSACTIONS_EVENT,
    action: reason,
    transactionHeadIds: [id],
    deliveryKey: reason,
    receivedAt: new Date(nowMs).toISOString(),
  };
  return thinEvent(payload, id, source, settings);
}
