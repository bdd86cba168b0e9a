import type { ProcessEventsHandler } from '../../functions/process-events.js';
import { createOpenApiClient, staticCredentials, type OpenApiClient } from '../../shared/openapi/index.js';
import type { PointsApi } from '../../shared/points/index.js';
import { purchase, RATE_BUDGET, RATE_CLIENT } from './events.js';
import type { WorkerBenchFigures } from './figures.js';
import { emulatorStats, emulatorTime, invoke, round, runConcurrently } from './harness.js';

/**
 * The rate run: a backlog of purchases with the budget at 2000/minute per endpoint, on one scaled
 * clock shared by the client's limiter and the emulator (set every 20 ms), so minutes pass in seconds.
 */

export interface RateRunOptions {
  emulatorUrl: string;
  /** Scaled clock start (1 s after a minute boundary). */
  start: number;
  backlog: number;
  members: number;
  clockScale: number;
  handlerFor: (openapi: PointsApi) => ProcessEventsHandler;
  clients: OpenApiClient[];
}

export async function rateRun(o: RateRunOptions): Promise<WorkerBenchFigures['rate']> {
  const realStart = Date.now();
  const scaledNow = () => o.start + (Date.now() - realStart) * o.clockScale;
  const scaledSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms / o.clockScale));
  const client = createOpenApiClient({
    credentials: staticCredentials({ baseUrl: o.emulatorUrl, clientId: RATE_CLIENT.id, clientSecret: RATE_CLIENT.secret }),
    ratePerMinute: RATE_BUDGET,
    now: scaledNow,
    sleep: scaledSleep,
  });
  o.clients.push(client);
  // Calls per scaled minute, taken when each call returns (its request was sent just before).
  const minuteOf = (ms: number) => Math.floor((ms - (o.start - 1000)) / 60_000);
  const calculations = new Map<number, number>();
  const counted: PointsApi = {
    getMemberByExternalId: (...a) => client.getMemberByExternalId(...a),
    getMemberByUniqueId: (...a) => client.getMemberByUniqueId(...a),
    getMember: (...a) => client.getMember(...a),
    listPoints: (...a) => client.listPoints(...a),
    grantPoints: (...a) => client.grantPoints(...a),
    calculatePoints: async (...a) => {
      const result = await client.calculatePoints(...a);
      const minute = minuteOf(scaledNow());
      calculations.set(minute, (calculations.get(minute) ?? 0) + 1);
      return result;
    },
  };
  const handler = o.handlerFor(counted);

  const setClock = () =>
    fetch(`${o.emulatorUrl}/__emulator/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ now: emulatorTime(scaledNow()) }),
    }).then((r) => r.body?.cancel());
  let ticking = true;
  const ticker = (async () => {
    while (ticking) {
      await setClock();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const rateMembers = Array.from({ length: o.members }, (_, i) => `r${100_000 + i}`);
  const backlog = Array.from({ length: o.backlog }, (_, i) => purchase(rateMembers[i % rateMembers.length] as string));
  const durations: number[] = [];
  // Wider than the other runs: events wait in the limiter, so more of them are in flight at once.
  const concurrency = 32;
  let realSeconds: number;
  try {
    realSeconds = await runConcurrently(backlog, concurrency, async (event) => {
      const t0 = scaledNow();
      await invoke(handler, event);
      durations.push((scaledNow() - t0) / 1000);
    });
  } finally {
    // Also when an event failed: the caller closes the emulator next, and a ticker still running would
    // throw ECONNRESET/ECONNREFUSED over the failure that matters.
    ticking = false;
    await ticker;
  }

  const stats = await emulatorStats(o.emulatorUrl, RATE_CLIENT.id);
  const routes = Object.fromEntries(
    Object.entries(stats.routes).map(([route, s]) => [route, { total: s.total, maxPerMinute: s.max_per_minute }]),
  );
  const minutes = [...calculations.entries()].sort(([a], [b]) => a - b);
  const minuteCounts = minutes.map(([, n]) => n);
  // The last minute is cut short by the end of the backlog; the others are complete.
  const complete = minuteCounts.slice(0, -1);
  const sustainedPerMinute = complete.length > 0 ? round(complete.reduce((a, b) => a + b, 0) / complete.length, 0) : (minuteCounts[0] ?? 0);
  durations.sort((a, b) => a - b);
  return {
    backlog: o.backlog,
    budgetPerMinute: RATE_BUDGET,
    clockScale: o.clockScale,
    concurrency,
    routes,
    minuteCounts,
    sustainedPerMinute,
    share: round(sustainedPerMinute / RATE_BUDGET, 3),
    eventSecondsP50: round(durations[Math.floor(durations.length / 2)] ?? 0, 1),
    eventSecondsMax: round(durations[durations.length - 1] ?? 0, 1),
    realSeconds: round(realSeconds, 1),
  };
}
