/**
 * `npm run bench [-- --quick]`: every benchmark of the project in one run, one table of figures side
 * by side, bench/results.md written with the machine's description and the method, and the same
 * figures as one JSON object on the last line of the output. Progress goes to stderr. Figures only:
 * nothing here passes or fails on time (limits are printed next to the figures they bound).
 */
import { writeFile } from 'node:fs/promises';
import { cpus, freemem, loadavg, release, totalmem, type as osType } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { costPer1000Events } from './cost.js';
import { comparisonJson, comparisonMarkdown, comparisonRows, PLOT_FILE, writeComparisonPlot } from './powertools/report.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const HERE = dirname(fileURLToPath(import.meta.url));

interface Row {
  area: string;
  figure: string;
  value: string;
  limit: string;
}

type Outcome<T> = { ok: true; value: T; seconds: number } | { ok: false; error: string; seconds: number };

const progress = (line: string) => process.stderr.write(`${line}\n`);

/** Runs one part; a part that fails (another part's code broken) is reported, the others still run. */
async function part<T>(name: string, run: () => Promise<T>): Promise<Outcome<T>> {
  progress(`bench: ${name}...`);
  const started = Date.now();
  try {
    const value = await run();
    const seconds = (Date.now() - started) / 1000;
    progress(`bench: ${name} done in ${seconds.toFixed(1)} s`);
    return { ok: true, value, seconds };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    progress(`bench: ${name} failed: ${message}`);
    return { ok: false, error: message.slice(0, 200), seconds: (Date.now() - started) / 1000 };
  }
}

function machine() {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeMemoryGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    os: `${osType()} ${release()}`,
    node: process.version,
    loadAverage1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits).replace(/\.0+$/, '') : String(n));
const kb = (bytes: number) => `${fmt(bytes / 1024)} KB`;

function table(rows: Row[]): string[] {
  const header: Row = { area: 'area', figure: 'figure', value: 'value', limit: 'limit / target' };
  const all = [header, ...rows];
  const width = (k: keyof Row) => Math.max(...all.map((r) => r[k].length));
  const w = { area: width('area'), figure: width('figure'), value: width('value'), limit: width('limit') };
  const line = (r: Row) => `${r.area.padEnd(w.area)}  ${r.figure.padEnd(w.figure)}  ${r.value.padStart(w.value)}  ${r.limit}`;
  return [
    line(header),
    `${'-'.repeat(w.area)}  ${'-'.repeat(w.figure)}  ${'-'.repeat(w.value)}  ${'-'.repeat(w.limit)}`,
    ...rows.map(line),
  ];
}

function markdownTable(rows: Row[]): string[] {
  return [
    '| area | figure | value | limit / target |',
    '|---|---|---:|---|',
    ...rows.map((r) => `| ${r.area} | ${r.figure} | ${r.value} | ${r.limit} |`),
  ];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
  const quick = values.quick ?? false;
  const started = Date.now();
  const host = machine();
  progress(`bench: ${quick ? 'quick' : 'full'} run on ${host.cores} x ${host.cpu}, load ${host.loadAverage1m}`);

  // One part at a time: they would compete for the same cores.
  const worker = await part('worker (cost, throughput vs floor, rate budget)', async () =>
    (await import('./worker.js')).runWorkerBench({ quick, log: progress }),
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

  const rows: Row[] = [];
  const row = (area: string, figure: string, value: string, limit: string) => rows.push({ area, figure, value, limit });
  const failed = (area: string, o: { ok: false; error: string }) => rows.push({ area, figure: 'failed', value: '-', limit: o.error });

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

  if (bundles.ok) {
    for (const b of bundles.value) {
      const sdk = b.external.length > 0 ? 'runtime AWS SDK' : 'AWS SDK bundled';
      row(
        'bundle',
        `${b.name} (${sdk}): minified / gzip`,
        `${kb(b.bytes)} / ${kb(b.gzipBytes)}`,
        b.name === 'process-events' ? '<= 400 KB' : '-',
      );
      const limit = b.name === 'process-events' ? '<= 80 ms' : '-';
      rows.push({
        area: 'bundle',
        figure: `${b.name}: module load p50 / max (fresh process)`,
        value: `${fmt(b.loadMsP50)} / ${fmt(b.loadMsMax)} ms`,
        limit,
      });
      row(
        'bundle',
        `${b.name}: init = load + building its clients, p50; RSS after`,
        `${fmt(b.initMsP50)} ms; ${fmt(b.rssMiB, 0)} MiB`,
        '-',
      );
      if (b.pinnedSdk) {
        row(
          'bundle',
          `${b.name} with the pinned SDK bundled: size; load / init p50`,
          `${kb(b.pinnedSdk.bytes)}; ${fmt(b.pinnedSdk.loadMsP50)} / ${fmt(b.pinnedSdk.initMsP50)} ms`,
          'side by side',
        );
      }
      if (b.hybridSdk) {
        row(
          'bundle',
          `${b.name}, DynamoDB client bundled, rest of the SDK from the runtime: size; load / init p50`,
          `${kb(b.hybridSdk.bytes)}; ${fmt(b.hybridSdk.loadMsP50)} / ${fmt(b.hybridSdk.initMsP50)} ms`,
          'side by side',
        );
      }
      if (b.esmImportSdk) {
        row(
          'bundle',
          `${b.name}, runtime SDK by ESM import (not require): load p50`,
          `${fmt(b.esmImportSdk.loadMsP50)} ms`,
          'side by side',
        );
      }
    }
  } else failed('bundles', bundles);

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
      `burst of ${e.burst.events}: backlog drained in (budget ${e.rateBudgetPerMinute}/min per endpoint)`,
      `${fmt(e.burst.drainSeconds)} s (${fmt(e.burst.drainEventsPerSecond)} events/s)`,
      'budget alone: 0 s below 2000',
    );
    row('end to end', 'not credited / dead-lettered', `${e.notCredited} / ${e.deadLettered}`, 'none expected');
  } else failed('end to end', endToEnd);
  if (versus.ok) rows.push(...comparisonRows(versus.value));
  else failed('vs Powertools', versus);

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

  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const figures = {
    quick,
    date: new Date().toISOString(),
    seconds,
    machine: { ...host, loadAverage1mAtEnd: Math.round((loadavg()[0] ?? 0) * 100) / 100 },
    worker: worker.ok ? worker.value : { error: worker.error },
    intakeLatency: latency.ok ? latency.value : { error: latency.error },
    intake: intake.ok ? intake.value : { error: intake.error },
    bundles: bundles.ok ? bundles.value : { error: bundles.error },
    client: client.ok ? client.value : { error: client.error },
    emulator: emulator.ok ? emulator.value : { error: emulator.error },
    endToEnd: endToEnd.ok ? endToEnd.value : { error: endToEnd.error },
    cost,
    comparison: versus.ok ? comparisonJson(versus.value) : { error: versus.error },
  };

  if (versus.ok) await writeComparisonPlot(versus.value, join(HERE, PLOT_FILE));
  const versusSection = versus.ok ? comparisonMarkdown(versus.value) : [];
  await writeFile(join(HERE, 'results.md'), resultsMarkdown(rows, figures, quick, host, seconds, versusSection));
  for (const line of table(rows)) console.log(line);
  console.log(`(${quick ? 'quick' : 'full'} run, ${seconds} s; written to bench/results.md)`);
  console.log(JSON.stringify(figures));
}

function resultsMarkdown(
  rows: Row[],
  figures: unknown,
  quick: boolean,
  host: ReturnType<typeof machine>,
  seconds: number,
  versusSection: string[],
): string {
  return [
    '# Benchmark results',
    '',
    `Written by \`npm run bench${quick ? ' -- --quick' : ''}\` on ${new Date().toISOString()} (${seconds} s). Figures, not verdicts: nothing fails on time.`,
    '',
    '## Machine',
    '',
    `- CPU: ${host.cores} x ${host.cpu}`,
    `- memory: ${host.memoryGiB} GiB (${host.freeMemoryGiB} GiB free at start)`,
    `- OS: ${host.os}; Node ${host.node}`,
    `- load average (1 min) at start: ${host.loadAverage1m}, at the end: ${Math.round((loadavg()[0] ?? 0) * 100) / 100}. Everything runs in one process on these cores: emulator, dynalite, worker and`,
    '  floor share them, so a loaded machine lowers every throughput figure; ratios measured side by side hold up better.',
    '- **Absolute figures (events/s, ms) were taken on a shared machine under load** (other work on the same 2 cores, see',
    '  the load averages): read the side-by-side ratios (worker / floor, pinned vs runtime SDK) rather than the absolute values.',
    '',
    '## Figures',
    '',
    ...markdownTable(rows),
    '',
    ...versusSection,
    '## How they are measured',
    '',
    '- **Cost per event** (bench/worker.ts): after 20 warm-up purchases (token cached, pools warm), events go one at a time',
    "  through `functions/process-events.ts` `makeHandler` as SQS FIFO records. Open API calls are the emulator's own",
    '  request counts (`/__emulator/stats`, token requests included); DynamoDB requests are counted by a middleware on the',
    '  SDK client the ledger uses. The first refund of an order also reads the point history once, to learn the exact',
    '  credited figure (the purchase stores only the balance difference, to stay at 2 calls). A new order costs 2 writes,',
    '  a PutItem and an UpdateItem: the claim writes the pending order where none is (`attribute_not_exists`), the',
    '  finish is the one conditional update on the lease (issue 24 removed a second finish path, a whole-item replace',
    '  guarded by a `revision` counter, that only lifted the CPU-bound ratio below; AWS bills a put and an update alike).',
    '- **Worker vs floor, CPU-bound**: the same number of purchases, 8 at a time, batches of one record. The floor does only',
    '  the bare work of a purchase in the same process: 2 raw undici requests (lookup by external id, points calculation)',
    '  and 2 DynamoDB writes (conditional put, update). Chunks of 50 alternate floor and worker (ABBA order, so both',
    "  sides see the same load), times summed per side. The worker's client has its limiter opened wide here: the",
    '  limiter is measured in the rate run. Nothing waits on a network, so this figure compares CPU in one process',
    '  (dynalite and the emulator included): the split of one purchase at a time (time inside DynamoDB requests, inside',
    "  Open API calls, and the rest) shows where the gap is. The DynamoDB and Open API parts now match the floor's; the",
    "  rest is the worker's own work, which the floor does not do: the SQS record and event parsed and checked, the",
    '  batch processor, the outcome line and metrics, the validated Open API answers.',
    '- **Latency model** (`worker.awsLatency`): time spent where AWS spends it. Every Open API call of the run is held',
    "  back by the emulator's `delay` fault (one fault per call, `times: 1`, 40 ms +/- 10 ms uniform jitter from a seeded",
    '  generator, so both sides get the same series), and every DynamoDB request waits 5 ms in a middleware on the SDK',
    '  client that the ledger and the floor share (the round trip to DynamoDB in the same region). 4 purchases at a time',
    '  (4 containers, each working one record at a time), chunks of 40 alternating floor and worker, times summed.',
    '  The per-event p50 is what a purchase costs in billed Lambda time in this model (it feeds the cost line).',
    '- **Rate budget**: a backlog of purchases through a worker whose client has the production budget (2000 requests',
    '  per minute per endpoint), 32 events in flight. To see minutes in seconds, one scaled clock (K x real time) drives',
    "  both sides: the client's limiter (`now` and `sleep`) and the emulator's clock, set through",
    '  `POST /__emulator/clock` every 20 ms. K is chosen from the measured throughput T so that the budget, not the',
    "  worker, is the bound: a minute's 2000 calls take 2000 / T real seconds, which must fit in 60 / K, so K = 0.7 x 0.03 T",
    "  (at least 1, at most 20). The scaled clock starts 1 s after a minute boundary, so the limiter's",
    "  sliding 60 s windows line up with the emulator's clock minutes. `max_per_minute` is the emulator's own figure;",
    '  the sustained rate is the mean of the complete clock minutes of calculation calls (counted when each call returns),',
    '  as a share of 2000. The event time shows what waiting in the limiter costs an event under a backlog.',
    "- **Intake latency** (bench/intake-latency.ts): signed Shopify orders and POS sales (the chaos scenario's payloads),",
    '  one at a time on a keep-alive connection, to the local API Gateway stand-in (local/http) in front of the real',
    '  receive-webhook handler, until the 2xx; the queue behind only records the message. 100 warm-up requests.',
    '- **Bundles** (bench/bundles.ts): each function built as the stack builds it (esbuild, ESM, minified, the AWS SDK',
    '  left to the Lambda runtime: infra/paths.ts). One fresh Node process per sample (9 samples in a quick run, 15 in a',
    '  full one, every variant in each round, so a slow moment of the disk or CPU hits all alike); load = evaluating the module, init =',
    "  load + `depsFromEnvironment` with the stack's environment (the DynamoDB/SQS clients, the Open API client, logger,",
    "  metrics: what a cold start pays before the first request leaves), RSS = the process's resident memory after init.",
    '  An external module is loaded from node_modules, as the runtime loads its own (its version may differ: AWS updates',
    "  the runtime's SDK). Side by side, samples interleaved: the same function with the pinned SDK bundled (esbuild",
    '  tree-shakes its ESM build) and, for the worker, with the ledger taking the runtime SDK by ESM `import` instead of',
    '  `require()` (shared/ledger/sdk.ts: an ESM import of a CommonJS package first scans its source for export names).',
    '- **End to end** (bench/end-to-end.ts, `endToEnd`): the local stack (`startLocalStack`, the code `npm start` runs) with',
    '  500 members, production defaults (rate budget 2000/min per endpoint). Signed Shopify orders/paid webhooks over HTTP;',
    "  each is timed from the start of its POST to the worker's `event processed` line with outcome credited (the points",
    '  call has returned: the points are visible upstream). Steady: one webhook every 100 ms (10 events/s, 10 s quick,',
    '  30 s full); burst: 500 posted at once over 8 connections, drained = first POST to the last credit. No latency is',
    "  injected here: these are the local stack's own figures. A burst of 500 needs 500 calls per endpoint, under the",
    '  2000 per minute budget, so the budget does not slow it (the limiter is a sliding window): it drains at the',
    "  worker's speed. A backlog larger than the budget drains at 2000 events per minute (the rate budget figures above).",
    "- **Cost** (bench/cost.ts): list prices (docs/deploy.md section 7) with the worker's per-purchase time from the",
    "  latency model and the receiver's handler time (intake bench) plus a modelled 15 ms SQS SendMessage, at the",
    "  production stage's configured memory (Lambda bills configured memory, not RSS).",
    '- **Run-to-run spread** on this code, four quick runs before this one (load average 0.7 to 1.1): CPU-bound',
    '  worker / floor 0.79, 0.85, 0.83, 0.89; latency model 0.98, 0.98, 0.98, 0.99; worker load p50 79.6, 71.3, 76.3 ms',
    '  and once 105.4 ms (5 samples then; in that run the pinned bundle, which reads one file, loaded in 72 ms: reading',
    "  the runtime SDK's ~50 files from a busy disk is what varies most, hence 9 samples now). One run is one sample.",
    '  Before issue 18 was resumed: 0.52-0.56, 0.91-0.94 and 80-82 ms; the gains came from the ledger writing a new order',
    '  with two puts instead of two update expressions (dynalite parses every expression; AWS charges the same write',
    '  unit either way), the outcome union no longer built at load, and a lighter deadline in the Open API transport.',
    '- Intake handler, Open API client and emulator figures come from bench/intake.ts, bench/client.ts and',
    '  bench/emulator.ts (their own files describe their method).',
    '',
    '## All figures (JSON, as printed on the last line of the command)',
    '',
    '```json',
    JSON.stringify(figures, null, 2),
    '```',
    '',
  ].join('\n');
}

main().catch((error: unknown) => {
  console.error(`bench: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
