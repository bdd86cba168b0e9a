import type { LedgerActivity } from '../ledger/index.js';
import { callEntry, createCarrier, type ReceiveStart, receiveEntry } from './carry.js';
import type { BreakerTransition, CallEntry, RunSummary } from './entries.js';
import { BREAKER_KEY, MAX_ORDER_ENTRIES, MAX_RUNS, MAX_TRANSITIONS, orderActivityKey, RUNS_KEY } from '../ledger/index.js';
import type { ActivityStore } from '../ledger/index.js';

/**
 * Writes the activity record, best effort: a failed write is reported to `onError` and dropped; nothing
 * here throws into the caller and nothing reads it back to decide anything. The worker's receives run
 * `within` a scope (carry.ts): the delivery intake put in the message, the grant calls and the receive
 * ride on the ledger's own writes of that order (`ledger`, given to createLedger), so a receive that
 * ends in one of them costs no write of its own; what none of them took is written to the order's
 * activity item when the receive ends. The breaker's transitions and the runs' summaries go to items
 * of their own; `delivery` (an activity item write) remains for callers outside the worker.
 */

export interface DeliveryObservation {
  /** When the delivery came in (epoch ms), not when it is written down. */
  receivedAt: number;
  source: string;
  orderId: string;
  refundId?: string;
  deliveryId: string;
  topic?: string;
  status: number;
  answer: string;
}

/** The worker's line for one receive: its ids and the outcome's fields (as the `event processed` log line). */
export interface ReceiveObservation {
  messageId: string;
  receiveCount: number;
  source?: string;
  orderId?: string;
  refundId?: string;
  outcome?: unknown;
  action?: unknown;
  reason?: unknown;
}

export interface ActivityRecorder {
  delivery(d: DeliveryObservation): Promise<void>;
  /** A receive and its outcome (deferSeconds: the message was deferred), with the calls noted since the last one. */
  received(r: ReceiveObservation, deferSeconds?: number): Promise<void>;
  /** A grant or calculation call, to be written with the receive that made it. */
  noteCall(call: Omit<CallEntry, 'type' | 'at'>): void;
  /** Runs a receive's processing so that its activity rides on the ledger's writes (carry.ts). */
  within<T>(start: ReceiveStart, work: () => Promise<T>): Promise<T>;
  /** The hook for createLedger's `activity`. */
  readonly ledger: LedgerActivity;
  breaker(t: Omit<BreakerTransition, 'at'>): void;
  run(summary: RunSummary): Promise<void>;
}

export interface ActivityRecorderOptions {
  store: ActivityStore | (() => Promise<ActivityStore>);
  clock: () => number;
  onError?: (what: string, error: unknown) => void;
}

export function createActivityRecorder(options: ActivityRecorderOptions): ActivityRecorder {
  const { clock } = options;
  const iso = () => new Date(clock()).toISOString();
  let store: Promise<ActivityStore> | undefined;
  const open = () => (store ??= typeof options.store === 'function' ? options.store() : Promise.resolve(options.store));
  let calls: CallEntry[] = [];
  const carrier = createCarrier(iso);
  const pending = new Set<Promise<void>>();
  const safely = async (what: string, write: (s: ActivityStore) => Promise<void>) => {
    try {
      await write(await open());
    } catch (e) {
      options.onError?.(what, e);
    }
  };
  const inBackground = (what: string, write: (s: ActivityStore) => Promise<void>) => {
    const p = safely(what, write).finally(() => pending.delete(p));
    pending.add(p);
  };
  return {
    delivery(d) {
      const { source, orderId, receivedAt, ...entry } = d;
      const at = new Date(receivedAt).toISOString();
      return safely('delivery', (s) =>
        s.append(orderActivityKey(source, orderId), [{ type: 'delivery', at, ...entry }], MAX_ORDER_ENTRIES),
      );
    },
    async received(r, deferSeconds) {
      const scope = carrier.end(r.messageId, r.receiveCount);
      const made = scope ? scope.pending : calls.map((c) => callEntry(undefined, c));
      if (!scope) calls = [];
      // The breaker's transitions reported meanwhile are written before the invocation can be frozen.
      await Promise.all([...pending]);
      if (r.source === undefined || r.orderId === undefined) return; // not an event of ours: nothing to file it under
      // Filed with the ledger write that ended it: only what no write took is left (usually nothing).
      const filed = scope?.filed === true && r.action !== 'retry';
      const where = { messageId: r.messageId, receiveCount: r.receiveCount, ...(r.refundId ? { refundId: r.refundId } : {}) };
      const entries = filed ? made : [...made, receiveEntry(where, iso(), r, deferSeconds)];
      if (entries.length === 0) return;
      const refund = r.refundId ? { refundId: r.refundId } : {};
      await safely('receive', (s) =>
        s.append(
          orderActivityKey(r.source as string, r.orderId as string),
          entries.map((e) => ({ ...refund, ...e })),
          MAX_ORDER_ENTRIES,
        ),
      );
    },
    noteCall(call) {
      const entry: CallEntry = { type: 'call', at: iso(), ...call };
      const scope = carrier.current();
      if (scope) scope.pending.push(callEntry(scope, entry));
      else calls.push(entry);
    },
    within: (start, work) => carrier.within(start, work),
    ledger: carrier.ledger,
    breaker(t) {
      inBackground('breaker', (s) => s.push(BREAKER_KEY, 'transitions', { at: iso(), ...t }, MAX_TRANSITIONS));
    },
    run(summary) {
      return safely('run', (s) => s.push(RUNS_KEY, 'runs', summary, MAX_RUNS));
    },
  };
}
