import type { BreakerTransition, CallEntry, RunSummary } from './entries.js';
import { BREAKER_KEY, MAX_ORDER_ENTRIES, MAX_RUNS, MAX_TRANSITIONS, orderActivityKey, RUNS_KEY } from './keys.js';
import type { ActivityStore } from './store.js';

/**
 * Writes the activity record, best effort: a failed write is reported to `onError` and dropped; nothing
 * here throws into the caller and nothing reads it back to decide anything. Intake records a delivery
 * once its answer is decided; the worker notes its grant calls as they happen and writes them with the
 * receive that made them (one write per receive); the breaker's transitions and the runs' summaries go
 * to items of their own.
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
  breaker(t: Omit<BreakerTransition, 'at'>): void;
  run(summary: RunSummary): Promise<void>;
}

export interface ActivityRecorderOptions {
  store: ActivityStore | (() => Promise<ActivityStore>);
  clock: () => number;
  onError?: (what: string, error: unknown) => void;
}

const text = (v: unknown, max = 300) => (typeof v === 'string' ? v.slice(0, max) : undefined);

export function createActivityRecorder(options: ActivityRecorderOptions): ActivityRecorder {
  const { clock } = options;
  const iso = () => new Date(clock()).toISOString();
  let store: Promise<ActivityStore> | undefined;
  const open = () => (store ??= typeof options.store === 'function' ? options.store() : Promise.resolve(options.store));
  let calls: CallEntry[] = [];
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
      const made = calls;
      calls = [];
      // The breaker's transitions reported meanwhile are written before the invocation can be frozen.
      await Promise.all([...pending]);
      if (r.source === undefined || r.orderId === undefined) return; // not an event of ours: nothing to file it under
      const receive = {
        type: 'receive',
        at: iso(),
        ...(r.refundId ? { refundId: r.refundId } : {}),
        messageId: r.messageId,
        receiveCount: r.receiveCount,
        outcome: text(r.outcome, 60) ?? 'unknown',
        action: r.action === 'retry' ? 'retry' : 'ack',
        ...(deferSeconds === undefined ? {} : { deferSeconds }),
        ...(text(r.reason) ? { reason: text(r.reason) } : {}),
      };
      const refund = r.refundId ? { refundId: r.refundId } : {};
      await safely('receive', (s) =>
        s.append(
          orderActivityKey(r.source as string, r.orderId as string),
          [...made.map((c) => ({ ...refund, ...c })), receive],
          MAX_ORDER_ENTRIES,
        ),
      );
    },
    noteCall(call) {
      calls.push({ type: 'call', at: iso(), ...call });
    },
    breaker(t) {
      inBackground('breaker', (s) => s.push(BREAKER_KEY, 'transitions', { at: iso(), ...t }, MAX_TRANSITIONS));
    },
    run(summary) {
      return safely('run', (s) => s.push(RUNS_KEY, 'runs', summary, MAX_RUNS));
    },
  };
}
