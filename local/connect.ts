import { createDocumentClient, createLedger, type Ledger } from '../shared/ledger/index.js';
import { createOpenApiClient, type OpenApiClient, staticCredentials } from '../shared/openapi/index.js';
import type { LocalConfig } from './config.js';
import { LOCAL_AWS } from './dynamodb/index.js';
import { type ListedDeadLetter, listDeadLetter } from './admin.js';
import type { LocalQueueStats } from './queue/index.js';
import type { LocalStack } from './stack.js';

/** Handles on a running local stack, whether it runs in this process or in an `npm start` beside it. */
export interface LocalStackHandle {
  intakeUrl: string;
  openapi: OpenApiClient;
  ledger: Ledger;
  queueStats(): Promise<LocalQueueStats>;
  deadLetters(): Promise<ListedDeadLetter[]>;
  redrive(): Promise<number>;
  /** Resolves when the queue holds nothing; rejects after `timeoutMs` (default 30 s). */
  waitForIdle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const loopback = (port: number) => `http://127.0.0.1:${port}`;

/** GET /healthz: 'up' (200), 'starting' (503), or 'down' (nothing listening, or not a local stack). */
export async function probeHealth(intakeUrl: string): Promise<'up' | 'starting' | 'down'> {
  try {
    const res = await fetch(`${intakeUrl}/healthz`, { signal: AbortSignal.timeout(2_000) });
    await res.body?.cancel();
    return res.status === 200 ? 'up' : res.status === 503 ? 'starting' : 'down';
  } catch {
    return 'down';
  }
}

async function adminJson<T>(intakeUrl: string, method: 'GET' | 'POST', path: string): Promise<T> {
  const res = await fetch(`${intakeUrl}${path}`, { method, signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: is this a local stack (npm start)?`);
  return (await res.json()) as T;
}

/** Connects to an `npm start` listening on the configured ports (same environment, same defaults). */
export function connectToRunningStack(config: LocalConfig): LocalStackHandle {
  const intakeUrl = loopback(config.ports.intake);
  const openapi = createOpenApiClient({
    credentials: staticCredentials({ baseUrl: loopback(config.ports.emulator), clientId: config.clientId, clientSecret: config.clientSecret }),
  });
  const documentClient = createDocumentClient({ endpoint: loopback(config.ports.dynamodb), ...LOCAL_AWS });
  const ledger = createLedger({ client: documentClient, tableName: config.tableName, clock: Date.now });
  const queueStats = () => adminJson<LocalQueueStats>(intakeUrl, 'GET', '/__local/queue');
  return {
    intakeUrl,
    openapi,
    ledger,
    queueStats,
    deadLetters: async () => (await adminJson<{ messages: ListedDeadLetter[] }>(intakeUrl, 'GET', '/__local/dlq')).messages,
    redrive: async () => (await adminJson<{ moved: number }>(intakeUrl, 'POST', '/__local/redrive')).moved,
    async waitForIdle(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = await queueStats();
        if (s.visible + s.processing + s.waitingRetry === 0 && s.runningBatches === 0) return;
        if (Date.now() > deadline) {
          throw new Error(`the queue is not idle after ${timeoutMs} ms (visible ${s.visible}, processing ${s.processing}, waiting retry ${s.waitingRetry})`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      await openapi.close();
      documentClient.destroy();
    },
  };
}

/** The same handles on a stack started in this process (its own Open API client; the stack's ledger). */
export function handleOf(stack: LocalStack): LocalStackHandle {
  const openapi = createOpenApiClient({ credentials: staticCredentials(stack.openApi) });
  return {
    intakeUrl: stack.urls.intake,
    openapi,
    ledger: stack.ledger,
    queueStats: async () => stack.queue.stats(),
    deadLetters: async () => stack.queue.deadLetters().map(listDeadLetter),
    redrive: async () => stack.queue.redrive(),
    waitForIdle: (timeoutMs = 30_000) => stack.queue.waitForIdle({ timeoutMs }),
    close: () => openapi.close(),
  };
}
