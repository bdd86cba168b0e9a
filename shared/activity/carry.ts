import { AsyncLocalStorage } from 'node:async_hooks';
import type { LedgerActivity, WriteNote } from '../ledger/index.js';
import type { CallEntry } from './entries.js';

/**
 * The activity of one receive, carried by the ledger's own writes (shared/ledger/store.ts) instead of
 * writes of its own: what intake knew (the delivery: its id, topic and when it came, in the queue
 * message), the calls the receive made, and, on the write that ends it with an outcome, the receive.
 * A receive's scope follows its processing through AsyncLocalStorage, so concurrent receives (the
 * local queue runs several) keep theirs apart. Whatever no ledger write took (a retry, a write whose
 * condition failed) is written by the recorder when the receive ends, as before.
 */

export interface ReceiveStart {
  messageId: string;
  receiveCount: number;
  /** The queued event (its ids and the delivery intake noted in it). */
  body: unknown;
}

type Entry = Record<string, unknown> & { type: string; at: string };

export interface ReceiveScope {
  messageId: string;
  receiveCount: number;
  source?: string;
  orderId?: string;
  refundId?: string;
  /** Entries no ledger write has taken yet. */
  pending: Entry[];
  /** How many of `pending` the write in progress carries, and whether it carries the receive. */
  inFlight?: { count: number; receive: boolean };
  /** The receive itself was written with the outcome that ended it. */
  filed: boolean;
}

const text = (v: unknown, max = 300) => (typeof v === 'string' ? v.slice(0, max) : undefined);
const field = (o: unknown, name: string) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[name] : undefined);

/** The delivery entry intake's message carries (none for a message without `delivery.receivedAt`). */
function deliveryEntry(body: unknown, refundId: string | undefined): Entry[] {
  const delivery = field(body, 'delivery');
  const id = text(field(delivery, 'id'), 200);
  const at = text(field(delivery, 'receivedAt'), 40);
  if (!id || !at) return [];
  const topic = text(field(delivery, 'topic'), 100);
  // Intake queues what it accepts and answers 202 once all of it is queued: that is the answer on record.
  return [
    {
      type: 'delivery',
      at,
      ...(refundId ? { refundId } : {}),
      deliveryId: id,
      ...(topic ? { topic } : {}),
      status: 202,
      answer: 'accepted',
    },
  ];
}

export function scopeOf(start: ReceiveStart): ReceiveScope {
  const source = text(field(start.body, 'source'), 200);
  const orderId = text(field(start.body, 'orderId'), 200);
  const refundId = text(field(start.body, 'refundId'), 200);
  return {
    messageId: start.messageId,
    receiveCount: start.receiveCount,
    ...(source ? { source } : {}),
    ...(orderId ? { orderId } : {}),
    ...(refundId ? { refundId } : {}),
    pending: deliveryEntry(start.body, refundId),
    filed: false,
  };
}

/** The receive's own entry, as the recorder writes it (outcome and action of its line). */
export function receiveEntry(
  scope: Pick<ReceiveScope, 'messageId' | 'receiveCount' | 'refundId'>,
  at: string,
  line: { outcome?: unknown; action?: unknown; reason?: unknown },
  deferSeconds?: number,
): Entry {
  return {
    type: 'receive',
    at,
    ...(scope.refundId ? { refundId: scope.refundId } : {}),
    messageId: scope.messageId,
    receiveCount: scope.receiveCount,
    outcome: text(line.outcome, 60) ?? 'unknown',
    action: line.action === 'retry' ? 'retry' : 'ack',
    ...(deferSeconds === undefined ? {} : { deferSeconds }),
    ...(text(line.reason) ? { reason: text(line.reason) } : {}),
  };
}

export interface Carrier {
  /** Runs a receive's processing in its scope. */
  within<T>(start: ReceiveStart, work: () => Promise<T>): Promise<T>;
  /** The scope of the receive now running (a call noted now is its). */
  current(): ReceiveScope | undefined;
  /** Ends a receive's scope: what is still pending, and whether its receive was filed. */
  end(messageId: string, receiveCount: number): ReceiveScope | undefined;
  /** The hook the ledger's writes call (shared/ledger/store.ts). */
  ledger: LedgerActivity;
}

export function createCarrier(iso: () => string): Carrier {
  const als = new AsyncLocalStorage<ReceiveScope>();
  const scopes = new Map<string, ReceiveScope>();
  const keyOf = (messageId: string, receiveCount: number) => `${messageId}:${receiveCount}`;
  /** The running receive's scope when the write is for its order. */
  const mine = (note: WriteNote) => {
    const s = als.getStore();
    return s && s.source === note.ref.source && s.orderId === note.ref.orderId ? s : undefined;
  };
  return {
    within(start, work) {
      const scope = scopeOf(start);
      const key = keyOf(start.messageId, start.receiveCount);
      scopes.set(key, scope);
      // A receive that throws is never ended by the consumer (no outcome line): its scope goes with it.
      return als.run(scope, work).catch((e: unknown) => {
        scopes.delete(key);
        throw e;
      });
    },
    current: () => als.getStore(),
    end(messageId, receiveCount) {
      const key = keyOf(messageId, receiveCount);
      const scope = scopes.get(key);
      scopes.delete(key);
      return scope;
    },
    ledger: {
      take(note) {
        const s = mine(note);
        if (!s) return [];
        const receive = note.finish !== undefined && !s.filed && note.ref.refundId === s.refundId;
        s.inFlight = { count: s.pending.length, receive };
        const finish = note.finish;
        return receive && finish ? [...s.pending, receiveEntry(s, iso(), { ...finish, action: 'ack' })] : [...s.pending];
      },
      settle(note, written) {
        const s = mine(note);
        if (!s?.inFlight) return;
        if (written) {
          s.pending.splice(0, s.inFlight.count);
          if (s.inFlight.receive) s.filed = true;
        }
        s.inFlight = undefined;
      },
    },
  };
}

/** A noted call as an entry of the running receive (its refund id with it). */
export const callEntry = (scope: ReceiveScope | undefined, call: CallEntry): Entry =>
  ({ ...(scope?.refundId ? { refundId: scope.refundId } : {}), ...call }) as Entry;
