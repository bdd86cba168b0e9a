/**
 * `npm run bench [-- --quick]`: every benchmark of the project in one run, one table of figures side
 * by side, bench/results.md written with the machine's description and the method, and the same
 * figures as one JSON object on the last line of the output. Progress goes to stderr. Figures only:
 * nothing here passes or fails on time (limits are printed next to the figures they bound).
 */
import { execFile } from 'node:child_process';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { costPer1000Events } from './cost.js';
import { exitCodeFor, failuresOf, part as runPart } from './parts.js';
import { type HistoryLine, machine, type Row, resultsMarkdown, table } from './report.js';
import { comparisonJson, comparisonMarkdown, comparisonRows, PLOT_FILE, writeComparisonPlot } from './powertools/report.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const HERE = dirname(fileURLToPath(import.meta.url));

const progress = (line: string) => process.stderr.write(`${line}\n`);
const part = <T>(name: string, run: () => Promise<T>) => runPart(name, run, progress);

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits).replace(/\.0+$/, '') : String(n));
const kb = (bytes: number) => `${fmt(bytes / 1024)} KB`;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  const quick = values.quick ?? false;
  const started = Date.now();
  const host = machine();
  progress(`bench: ${quick ? 'quick' : 'full'} run on ${host.cores} x ${host.cpu}, load ${host.loadAverage1m}`);
  const parts = await runParts(quick);
  const rows: Row[] = [];
  const w = rowWriter(rows);
  workerRows(w, parts.worker);
  productionRows(w, parts.production);
  intakeRows(w, parts);
  bundleRows(w, parts.bundles);
  clientAndEmulatorRows(w, parts);
  endToEndRows(w, parts);
  const cost = costRow(w, parts);
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const figures = figuresOf(parts, { quick, host, seconds, cost });
  await writeOutputs(parts, rows, figures, { quick, host, seconds });
  // A part that failed measured nothing: the run fails, naming it (the JSON's `failures`).
  if (figures.failures.length > 0) progress(`bench: failed parts: ${figures.failures.join(', ')}`);
  process.exitCode = exitCodeFor(figures.failures);
}

/** A part's key in the JSON (where it differs from its name in runParts). */
const PART_KEYS: Record<string, string> = { latency: 'intakeLatency', versus: 'comparison' };

/** Every part, one at a time: they would compete for the same cores. */
async function runParts(quick: boolean) {
  const worker = await part('worker (cost, throughput vs floor, rate budget)', async () =>
    (await import('./worker.js')).runWorkerBench({ quick, log: progress }),
  );
  const production = await part('production wiring (writes, write units, calls; Smaregi fan-out)', async () =>
    (await import('./production.js')).runProductionBench({ purchases: quick ? 20 : 50 }),
  );
  const latency = await part('intake latency over HTTP', async () =>
    (await import('./intake-latency.js')).runIntakeLatencyBench({ requests: quick ? 500 : 2000 }),
  );
  const bundles = await part('function bundles', async () => (await import('./bundles.js')).runBundleBench({ samples: quick ? 9 : 15 }));
  const intake = await part('intake handler', async () =>
    (await import('./intake.js')).runIntakeBench({ durationMs: quick ? 500 : 1000, loadSamples: quick ? 2 : 5 }),
  );
  const client = await part('Open API client', async () =>
    (await import('./client.js')).runClientBench(quick ? { calls: 150, rounds: 2, throughputCalls: 1000 } : {}),
  );
  const emulator = await part('emulator', async () =>
    (await import('./emulator.js')).runEmulatorBench({ durationMs: quick ? 2000 : 10_000 }),
  );
  const endToEnd = await part('end to end through the local stack', async () =>
    (await import('./end-to-end.js')).runEndToEndBench({ quick, log: progress }),
  );
  const versus = await part('side by side with Powertools idempotency', async () =>
    (await import('./powertools/compare.js')).runComparison({ purchases: quick ? 60 : 200, seed: 29, log: progress }),
  );
  return { worker, production, latency, bundles, intake, client, emulator, endToEnd, versus };
}

type Parts = Awaited<ReturnType<typeof runParts>>;

interface RowWriter {
  rows: Row[];
  row(area: string, figure: string, value: string, limit: string): void;
  failed(area: string, o: { ok: false; error: string }): void;
}

function rowWriter(rows: Row[]): RowWriter {
  return {
    rows,
    row: (area, figure, value, limit) => rows.push({ area, figure, value, limit }),
    failed: (area, o) => rows.push({ area, figure: 'failed', value: '-', limit: o.error }),
  };
}

function workerRows({ rows, row, failed }: RowWriter, worker: Parts['worker']): void {
  if (worker.ok) {
    const { cost, throughput, rate } = worker.value;
    const c = (name: string, x: typeof cost.purchase, limit: string) =>
      rows.push({
        area: 'worker cost',
        figure: `${name}: Open API calls / DynamoDB writes / reads`,
        value: `${fmt(x.openApiCalls, 2)} / ${fmt(x.dynamoWrites, 2)} / ${fmt(x.dynamoReads, 2)}`,
        limit,
      });
    c('purchase', cost.purchase, '<= 2 calls, <= 2 writes');
    const retried = cost.retriedPurchase;
    c(
      `purchase, ${fmt(retried.retryShare * 100, 0)} % delivered twice (released after the lookup)`,
      retried,
      '<= 2 + retry share calls (a kept member: the credit read from the history)',
    );
    c('first refund of an order', cost.firstRefund, '-');
    c('later refund of an order', cost.laterRefund, '-');
    row('worker speed', `events/s through the worker (${throughput.concurrency} at once)`, fmt(throughput.workerEventsPerSecond), '-');
    row('worker speed', 'events/s of the floor (2 HTTP + 2 writes)', fmt(throughput.floorEventsPerSecond), '-');
    row('worker speed', 'worker / floor (CPU-bound: no latency anywhere)', fmt(throughput.ratio, 2), '>= 0.8');
    const m = worker.value.awsLatency;
    const model = `Open API ${m.openApiMs} +/- ${m.jitterMs} ms, DynamoDB ${m.dynamoMs} ms, ${m.concurrency} at once`;
    row('latency model', `events/s worker / floor (${model})`, `${fmt(m.workerEventsPerSecond)} / ${fmt(m.floorEventsPerSecond)}`, '-');
    rows.push({ area: 'latency model', figure: 'worker / floor', value: fmt(m.ratio, 2), limit: '>= 0.95' });
    row('latency model', 'one purchase p50, worker / floor', `${fmt(m.workerEventMsP50)} / ${fmt(m.floorEventMsP50)} ms`, '-');
    const split = (name: string, x: typeof worker.value.split.worker) =>
      row(
        'worker speed',
        `one purchase at a time, ${name}: total = DynamoDB + Open API + rest`,
        `${fmt(x.totalMs, 2)} = ${fmt(x.dynamoMs, 2)} + ${fmt(x.openApiMs, 2)} + ${fmt(x.restMs, 2)} ms`,
        '-',
      );
    split('worker', worker.value.split.worker);
    split('floor', worker.value.split.floor);
    for (const [route, s] of Object.entries(rate.routes)) {
      if (route.includes('/token')) continue;
      row('rate budget', `max_per_minute ${route}`, String(s.maxPerMinute), `<= ${rate.budgetPerMinute}`);
    }
    row(
      'rate budget',
      `sustained calls/min per route (${rate.backlog} backlog, clock x${rate.clockScale})`,
      `${rate.sustainedPerMinute} (${fmt(rate.share * 100)} %)`,
      `share of ${rate.budgetPerMinute}`,
    );
    row(
      'rate budget',
      'event time p50 / max under the budget (clock s)',
      `${fmt(rate.eventSecondsP50)} / ${fmt(rate.eventSecondsMax)}`,
      'lease 120 s',
    );
    const redelivered = Object.entries(worker.value.retries);
    row(
      'worker',
      'events the handler failed and that were delivered again',
      String(redelivered.reduce((sum, [, n]) => sum + n, 0)),
      redelivered.map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none expected (no faults injected)',
    );
  } else failed('worker', worker);
}

function productionRows({ row, failed }: RowWriter, production: Parts['production']): void {
  if (!production.ok) {
    failed('production', production);
    return;
  }
  const { worker: w, intake, smaregiFanOut: f } = production.value;
  const area = 'production';
  row(
    area,
    'purchase: DynamoDB writes / Open API calls / write units (intake and worker, activity on)',
    `${fmt(w.dynamoWritesPerPurchase, 2)} / ${fmt(w.upstreamCallsPerPurchase, 2)} / ${fmt(w.writeUnitsPerPurchase, 2)}`,
    '<= 2 writes, <= 2 calls',
  );
  row(
    area,
    `purchase: requests to the shared upstream budget (DynamoDB, apart from the writes), over ${2 * w.purchases + 1} purchases from cold`,
    fmt(w.limiterRequestsPerPurchase, 2),
    '~0.1 cold (slices of 20), 0.04 warm (50)',
  );
  row(
    area,
    'refund (partial, first of its order): DynamoDB writes / Open API calls / write units',
    `${fmt(w.dynamoWritesPerRefund, 2)} / ${fmt(w.upstreamCallsPerRefund, 2)} / ${fmt(w.writeUnitsPerRefund, 2)}`,
    '-',
  );
  row(area, 'intake: DynamoDB writes per accepted delivery', fmt(intake.dynamoWritesPerDelivery, 2), '0');
  row(
    area,
    `Smaregi delivery of ${f.ids} ids under npm start (worker running): 2xx after`,
    `${fmt(f.localMs, 0)} ms (HTTP ${f.localStatus})`,
    '<= 10 s',
  );
  row(
    area,
    `the same, intake with SQS modelled (${f.batchCalls} SendMessageBatch x ${f.sqsBatchRoundTripMs} ms)`,
    `${fmt(f.awsModelMs, 0)} ms`,
    '<= 10 s',
  );
}

function intakeRows({ row, failed }: RowWriter, { latency, intake }: Parts): void {
  if (latency.ok) {
    row(
      'intake',
      `latency p50 / p99 over HTTP (${latency.value.requests} requests)`,
      `${fmt(latency.value.p50Ms, 2)} / ${fmt(latency.value.p99Ms, 2)} ms`,
      'Shopify waits 5 s',
    );
  } else failed('intake latency', latency);
  if (intake.ok) {
    row('intake', 'handler invocations/s (Shopify order, in process)', fmt(intake.value.invocationsPerSecond.shopifyAccepted, 0), '-');
  } else failed('intake', intake);
}

function bundleRows({ rows, row, failed }: RowWriter, bundles: Parts['bundles']): void {
  if (!bundles.ok) {
    failed('bundles', bundles);
    return;
  }
  for (const b of bundles.value) {
    const sdk = b.external.length > 0 ? 'runtime AWS SDK' : 'AWS SDK bundled';
    row(
      'bundle',
      `${b.name} (${sdk}): minified / gzip`,
      `${kb(b.bytes)} / ${kb(b.gzipBytes)}`,
      b.name === 'process-events' ? '<= 440 KB' : '-',
    );
    rows.push({
      area: 'bundle',
      figure: `${b.name}: module load p50 / max (fresh process)`,
      value: `${fmt(b.loadMsP50)} / ${fmt(b.loadMsMax)} ms`,
      limit: '-',
    });
    if (b.initMsP50 !== undefined) {
      row('bundle', `${b.name}: init = load + depsFromEnv, p50; RSS after`, `${fmt(b.initMsP50)} ms; ${fmt(b.rssMiB ?? 0, 0)} MiB`, '-');
    }
    if (b.sdkFloor) {
      const f = b.sdkFloor;
      row(
        'bundle',
        `${b.name}: load with its SDK / the SDK alone (${f.modules.map((m) => m.replace('@aws-sdk/', '')).join(', ')}), p50`,
        `${fmt(f.loadWithSdkMsP50)} / ${fmt(f.floorMsP50)} ms = ${fmt(f.ratio, 2)}x`,
        '<= 1.1x',
      );
      const m = f.sourceMaps;
      row(
        'bundle',
        `${b.name}: the same under the stack's NODE_OPTIONS (${m.nodeOptions}: what the deployed function loads with), p50`,
        `${fmt(m.loadWithSdkMsP50)} / ${fmt(m.floorMsP50)} ms = ${fmt(m.ratio, 2)}x`,
        '-',
      );
    }
  }
}

function clientAndEmulatorRows({ rows, row, failed }: RowWriter, { client, emulator }: Parts): void {
  if (client.ok) {
    row('Open API client', 'call p50 vs bare undici (ratio)', fmt(client.value.ratio, 2), '<= 1.10 (set with the undici transport)');
    row('Open API client', 'call p50 vs bare node:http, its HTTP stack (ratio)', fmt(client.value.bareNodeHttp.clientRatio, 2), '-');
    row(
      'Open API client',
      `calls/s (${client.value.throughput.concurrency} at once)`,
      fmt(client.value.throughput.clientCallsPerSecond, 0),
      '-',
    );
  } else failed('Open API client', client);

  if (emulator.ok) {
    row('emulator', `requests/s (${emulator.value.connections} connections)`, fmt(emulator.value.requestsPerSecond, 0), '-');
    if (emulator.value.emulatorCpuMsPerRequest !== undefined) {
      rows.push({ area: 'emulator', figure: 'CPU ms per request', value: fmt(emulator.value.emulatorCpuMsPerRequest, 3), limit: '-' });
    }
  } else failed('emulator', emulator);
}

function endToEndRows({ rows, row, failed }: RowWriter, { endToEnd, versus }: Parts): void {
  if (endToEnd.ok) {
    const e = endToEnd.value;
    row(
      'end to end',
      `POST -> points credited, steady ${fmt(e.steady.eventsPerSecond)} events/s: p50 / p99`,
      `${fmt(e.steady.p50Ms)} / ${fmt(e.steady.p99Ms)} ms`,
      '-',
    );
    row('end to end', `burst of ${e.burst.events}: p50 / p99`, `${fmt(e.burst.p50Ms)} / ${fmt(e.burst.p99Ms)} ms`, '-');
    row(
      'end to end',
      `burst of ${e.burst.events}: backlog drained in (budget ${e.upstreamBudgetPerMinute}/min per endpoint)`,
      `${fmt(e.burst.drainSeconds)} s (${fmt(e.burst.drainEventsPerSecond)} events/s)`,
      'budget alone: 0 s below 2000',
    );
    row('end to end', 'not credited / dead-lettered', `${e.notCredited} / ${e.deadLettered}`, 'none expected');
  } else failed('end to end', endToEnd);
  if (versus.ok) rows.push(...comparisonRows(versus.value));
  else failed('vs Powertools', versus);
}

type CostFigures = ReturnType<typeof costPer1000Events> | { error: string };

function costRow({ row }: RowWriter, { worker, intake }: Parts): CostFigures {
  let cost: ReturnType<typeof costPer1000Events> | { error: string } = { error: 'needs the worker and intake figures' };
  if (worker.ok && intake.ok) {
    cost = costPer1000Events({
      workerMsPerEvent: worker.value.awsLatency.workerEventMsP50,
      receiverHandlerMs: 1000 / intake.value.invocationsPerSecond.shopifyAccepted,
      dynamoWritesPerEvent: worker.value.cost.purchase.dynamoWrites,
    });
    row(
      'cost',
      `USD per 1000 purchases (worker ${fmt(cost.workerMsPerEvent)} ms at ${cost.workerMemoryMiB} MB, receiver ${fmt(cost.receiverMsPerEvent)} ms at ${cost.receiverMemoryMiB} MB)`,
      `$${cost.usdPer1000Events.toFixed(5)}`,
      `compute $${cost.lines.lambdaCompute.toFixed(5)}`,
    );
  }

  return cost;
}

interface RunInfo {
  quick: boolean;
  host: ReturnType<typeof machine>;
  seconds: number;
}

/** The figures as one JSON object (the output's last line). */
function figuresOf(
  { worker, production, latency, intake, bundles, client, emulator, endToEnd, versus }: Parts,
  { quick, host, seconds, cost }: RunInfo & { cost: CostFigures },
) {
  const figures = {
    quick,
    date: new Date().toISOString(),
    seconds,
    machine: { ...host, loadAverage1mAtEnd: Math.round((loadavg()[0] ?? 0) * 100) / 100 },
    worker: worker.ok ? worker.value : { error: worker.error },
    production: production.ok ? production.value : { error: production.error },
    intakeLatency: latency.ok ? latency.value : { error: latency.error },
    intake: intake.ok ? intake.value : { error: intake.error },
    bundles: bundles.ok ? bundles.value : { error: bundles.error },
    client: client.ok ? client.value : { error: client.error },
    emulator: emulator.ok ? emulator.value : { error: emulator.error },
    endToEnd: endToEnd.ok ? endToEnd.value : { error: endToEnd.error },
    cost,
    comparison: versus.ok ? comparisonJson(versus.value) : { error: versus.error },
    failures: failuresOf({ worker, production, latency, intake, bundles, client, emulator, endToEnd, versus }, PART_KEYS),
  };
  return figures;
}

async function writeOutputs(
  { versus }: Parts,
  rows: Row[],
  figures: ReturnType<typeof figuresOf>,
  { quick, host, seconds }: RunInfo,
): Promise<void> {
  if (versus.ok) await writeComparisonPlot(versus.value, join(HERE, PLOT_FILE));
  const versusSection = versus.ok ? comparisonMarkdown(versus.value) : [];
  const history = await recordHistory(figures, quick, host);
  const results = join(HERE, 'results.md');
  await writeFile(results, resultsMarkdown(rows, figures, quick, host, seconds, versusSection, history));
  await formatted(results);
  for (const line of table(rows)) console.log(line);
  console.log(`(${quick ? 'quick' : 'full'} run, ${seconds} s; written to bench/results.md)`);
  console.log(JSON.stringify(figures));
}

/** The project's formatter over a file the bench wrote (its tables aligned, as `npm run lint` checks them). */
async function formatted(file: string): Promise<void> {
  const biome = join(HERE, '..', 'node_modules', '.bin', 'biome');
  try {
    await promisify(execFile)(biome, ['format', '--write', file]);
  } catch (error) {
    progress(`bench: ${file} left unformatted: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
}

/** Appends this run's spread figures to bench/history.jsonl and returns every run recorded there. */
async function recordHistory(figures: ReturnType<typeof figuresOf>, quick: boolean, host: RunInfo['host']): Promise<HistoryLine[]> {
  const file = join(HERE, 'history.jsonl');
  const worker = 'cost' in figures.worker ? figures.worker : undefined;
  const floor = Array.isArray(figures.bundles) ? figures.bundles.find((b) => b.sdkFloor)?.sdkFloor : undefined;
  const line: HistoryLine = {
    date: figures.date,
    quick,
    loadAverage1m: host.loadAverage1m,
    ...(worker ? { cpuRatio: worker.throughput.ratio, latencyRatio: worker.awsLatency.ratio } : {}),
    ...(floor ? { workerLoadRatio: floor.ratio, workerLoadMsP50: floor.loadWithSdkMsP50 } : {}),
  };
  await appendFile(file, `${JSON.stringify(line)}\n`);
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as HistoryLine);
}

main().catch((error: unknown) => {
  console.error(`bench: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
