import { performance } from 'node:perf_hooks';
import type { ProcessEventsHandler } from '../../functions/process-events.js';
import type { PurchaseEvent, RefundEvent } from '../../shared/events/index.js';
import type { LocalDynamo } from '../../kit/dynalite.js';
import { sqsEvent } from './events.js';
import { mulberry32 } from '../../chaos/prng.js';

/** How the worker bench drives the handler and reads the emulator and DynamoDB: delivery, concurrency, counting. */

/** The handler's log lines are not printed; the last problem of each event is kept to explain a retry. */
export const problems = new Map<string, string>();
export const remember = (message: string, extra?: Record<string, unknown>) => {
  const id = typeof extra?.eventId === 'string' ? extra.eventId : '?';
  problems.set(id, `${message} ${JSON.stringify(extra ?? {})}`.slice(0, 300));
};
export const quiet = { info: () => undefined, warn: remember, error: remember };
export const quietMetrics = { addMetric: () => undefined, publishStoredMetrics: () => undefined };

/** Retries of events the handler did not acknowledge (the queue would redeliver them), by reason. */
export const retries = new Map<string, number>();

/** One event as the queue delivers it, redelivered (up to 5 times) when the handler reports it failed. */
export async function invoke(handler: ProcessEventsHandler, event: PurchaseEvent | RefundEvent): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await handler(sqsEvent(event));
    if (response.batchItemFailures.length === 0) return;
    const reason = problems.get(event.eventId) ?? 'no log line';
    if (attempt >= 5) throw new Error(`bench: event ${event.eventId} failed ${attempt} times: ${reason}`);
    const kind = /"outcome":"([^"]+)"/.exec(reason)?.[1] ?? reason.slice(0, 60);
    retries.set(kind, (retries.get(kind) ?? 0) + 1);
  }
}

/** Works through `items`, `concurrency` at a time; returns the seconds it took. After a failure no new
 * item starts, and the ones running are waited for before the failure is thrown (nothing runs on
 * against an emulator or a dynalite being closed). */
export async function runConcurrently<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  let failure: unknown;
  const started = performance.now();
  await Promise.allSettled(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length && failure === undefined) {
        try {
          await work(items[next++] as T);
        } catch (error) {
          failure ??= error;
        }
      }
    }),
  );
  if (failure !== undefined) throw failure;
  return (performance.now() - started) / 1000;
}

/** Counts DynamoDB requests by kind, and their time, at the client, the way the ledger really sends them. */
export function countDynamo(dynamo: LocalDynamo) {
  /** `roundTripMs` > 0: every request waits that long first, as a network round trip to DynamoDB would. */
  const counts = { writes: 0, reads: 0, ms: 0, roundTripMs: 0 };
  dynamo.client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? '');
      if (/^(Put|Update|Delete|BatchWrite|TransactWrite)/.test(name)) counts.writes += 1;
      else if (/^(Get|Query|Scan|BatchGet|TransactGet)/.test(name)) counts.reads += 1;
      const started = performance.now();
      try {
        if (counts.roundTripMs > 0) await new Promise((resolve) => setTimeout(resolve, counts.roundTripMs));
        return await next(args);
      } finally {
        counts.ms += performance.now() - started;
      }
    },
    { step: 'initialize', name: 'benchCountRequests' },
  );
  return counts;
}

export async function emulatorStats(
  url: string,
  clientId: string,
): Promise<{ routes: Record<string, { total: number; max_per_minute: number }>; token_requests: number }> {
  const response = await fetch(`${url}/__emulator/stats`);
  const body = (await response.json()) as {
    clients: Record<string, { routes: Record<string, { total: number; max_per_minute: number }>; token_requests: number }>;
  };
  return body.clients[clientId] ?? { routes: {}, token_requests: 0 };
}

export const totalCalls = (s: Awaited<ReturnType<typeof emulatorStats>>) => Object.values(s.routes).reduce((sum, r) => sum + r.total, 0);

export const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** `Y-m-d H:i:s` of an epoch ms, in UTC (the emulator's clock format). */
export function emulatorTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

export async function emulatorAdmin(url: string, method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<void> {
  const response = await fetch(`${url}/__emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await response.body?.cancel();
  if (!response.ok) throw new Error(`emulator ${method} ${path}: ${response.status}`);
}

/** A small deterministic PRNG (the chaos runs' mulberry32): the same jitter on every run. */
export const seeded = mulberry32;

export async function fetchToken(url: string, client: { id: string; secret: string }): Promise<string> {
  const response = await fetch(`${url}/api/ext/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'bench-floor' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret }),
  });
  const body = (await response.json()) as { access_token: string };
  return body.access_token;
}
