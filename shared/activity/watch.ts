import type { ActivityRecorder } from './recorder.js';

/**
 * The worker's observed parts: the Open API client's grants (their markers and what they answered) and
 * the circuit breaker's transitions, passed to the recorder without changing what either does.
 */

interface GrantInput {
  remarks?: string | undefined;
  point?: number;
}
interface GrantingApi {
  grantPoints(id: string, input: GrantInput, window?: { leftMs(): number }): Promise<unknown>;
  calculatePoints(id: string, input: GrantInput, window?: { leftMs(): number }): Promise<unknown>;
}

const WATCHED = new Set(['grantPoints', 'calculatePoints']);

/** The client with its two non-idempotent calls noted (marker, points, result), every argument passed on (the send window too); every other call untouched. */
export function watchCalls<T extends GrantingApi>(api: T, recorder: ActivityRecorder, clock: () => number = Date.now): T {
  return new Proxy(api, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof name !== 'string' || !WATCHED.has(name) || typeof value !== 'function') return value;
      return async (id: string, input: GrantInput, ...rest: unknown[]) => {
        const started = clock();
        const note = (result: string, executed?: string) =>
          recorder.noteCall({
            operation: name,
            ...(input.remarks ? { marker: input.remarks } : {}),
            ...(input.point === undefined ? {} : { points: input.point }),
            result,
            ...(executed ? { executed } : {}),
            ms: clock() - started,
          });
        try {
          const answer = await (value as (id: string, input: GrantInput, ...rest: unknown[]) => Promise<unknown>).call(
            target,
            id,
            input,
            ...rest,
          );
          note('ok');
          return answer;
        } catch (e) {
          const err = e as { kind?: unknown; executed?: unknown };
          note(typeof err.kind === 'string' ? err.kind : 'error', typeof err.executed === 'string' ? err.executed : undefined);
          throw e;
        }
      };
    },
  });
}

interface Breaker {
  admit(): unknown;
  record(result: { ok: true } | { ok: false; errorKind: string }): void;
  probeDone(): void;
  isOpen(): boolean;
}

/** The breaker with each change of state (closed to open, open to closed) reported as this worker's. */
export function watchBreaker<T extends Breaker>(breaker: T, recorder: ActivityRecorder, worker: string): T {
  let open = breaker.isOpen();
  const check = (reason?: string) => {
    const now = breaker.isOpen();
    if (now === open) return;
    open = now;
    recorder.breaker({ state: now ? 'open' : 'closed', worker, ...(now && reason ? { reason } : {}) });
  };
  return Object.assign(Object.create(breaker) as T, {
    admit: () => {
      const admission = breaker.admit();
      check();
      return admission;
    },
    record: (result: { ok: true } | { ok: false; errorKind: string }) => {
      breaker.record(result);
      check(result.ok ? undefined : result.errorKind);
    },
    probeDone: () => {
      breaker.probeDone();
      check();
    },
  });
}
