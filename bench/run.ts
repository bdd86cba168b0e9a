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
  return [line(header), `${'-'.repeat(w.area)}  ${'-'.repeat(w.figure)}  ${'-'.repeat(w.value)}  ${'-'.repeat(w.limit)}`, ...rows.map(line)];
}

function markdownTable(rows: Row[]): string[] {
  return ['| area | figure | value | limit / target |', '|---|---|---:|---|', ...rows.map((r) => `| ${r.area} | ${r.figure} | ${r.value} | ${r.limit} |`)];
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
  const bundles = await part('function bundles', async () => (await import('./bundles.js')).runBundleBench({ samples: quick ? 3 : 7 }));
  const intake = await part('intake handler', async () =>
    (await import('./intake.js')).runIntakeBench({ durationMs: quick ? 500 : 1000, loadSamples: quick ? 2 : 5 }),
  );
  const client = await part('Open API client', async () =>
    (await import('./client.js')).runClientBench(quick ? { calls: 150, rounds: 2, throughputCalls: 1000 } : {}),
  );
  const emulator = await part('emulator', async () => (await import('./emulator.js')).runEmulatorBench({ durationMs: quick ? 2000 : 10_000 }));

  const rows: Row[] = [];
  const failed = (area: string, o: { ok: false; error: string }) => rows.push({ area, figure: 'failed', value: '-', limit: o.error });

  if (worker.ok) {
    const { cost, throughput, rate } = worker.value;
    const c = (name: string, x: typeof cost.purchase, limit: string) =>
      rows.push({ area: 'worker cost', figure: `${name}: Open API calls / DynamoDB writes / reads`, value: `${fmt(x.openApiCalls, 2)} / ${fmt(x.dynamoWrites, 2)} / ${fmt(x.dynamoReads, 2)}`, limit });
    c('purchase', cost.purchase, '<= 2 calls, <= 2 writes');
    c('first refund of an order', cost.firstRefund, '-');
    c('later refund of an order', cost.laterRefund, '-');
    rows.push({ area: 'worker speed', figure: `events/s through the worker (${throughput.concurrency} at once)`, value: fmt(throughput.workerEventsPerSecond), limit: '-' });
    rows.push({ area: 'worker speed', figure: 'events/s of the floor (2 HTTP + 2 writes)', value: fmt(throughput.floorEventsPerSecond), limit: '-' });
    rows.push({ area: 'worker speed', figure: 'worker / floor', value: fmt(throughput.ratio, 2), limit: 'higher is better (1 = no overhead)' });
    const split = (name: string, x: typeof worker.value.split.worker) =>
      rows.push({
        area: 'worker speed',
        figure: `one purchase at a time, ${name}: total = DynamoDB + Open API + rest`,
        value: `${fmt(x.totalMs, 2)} = ${fmt(x.dynamoMs, 2)} + ${fmt(x.openApiMs, 2)} + ${fmt(x.restMs, 2)} ms`,
        limit: '-',
      });
    split('worker', worker.value.split.worker);
    split('floor', worker.value.split.floor);
    for (const [route, s] of Object.entries(rate.routes)) {
      if (route.includes('/token')) continue;
      rows.push({ area: 'rate budget', figure: `max_per_minute ${route}`, value: String(s.maxPerMinute), limit: `<= ${rate.budgetPerMinute}` });
    }
    rows.push({
      area: 'rate budget',
      figure: `sustained calls/min per route (${rate.backlog} backlog, clock x${rate.clockScale})`,
      value: `${rate.sustainedPerMinute} (${fmt(rate.share * 100)} %)`,
      limit: `share of ${rate.budgetPerMinute}`,
    });
    rows.push({ area: 'rate budget', figure: 'event time p50 / max under the budget (clock s)', value: `${fmt(rate.eventSecondsP50)} / ${fmt(rate.eventSecondsMax)}`, limit: 'lease 120 s' });
    const redelivered = Object.entries(worker.value.retries);
    rows.push({
      area: 'worker',
      figure: 'events the handler failed and that were delivered again',
      value: String(redelivered.reduce((sum, [, n]) => sum + n, 0)),
      limit: redelivered.map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none expected (no faults injected)',
    });
  } else failed('worker', worker);

  if (latency.ok) {
    rows.push({ area: 'intake', figure: `latency p50 / p99 over HTTP (${latency.value.requests} requests)`, value: `${fmt(latency.value.p50Ms, 2)} / ${fmt(latency.value.p99Ms, 2)} ms`, limit: 'Shopify waits 5 s' });
  } else failed('intake latency', latency);
  if (intake.ok) {
    rows.push({ area: 'intake', figure: 'handler invocations/s (Shopify order, in process)', value: fmt(intake.value.invocationsPerSecond.shopifyAccepted, 0), limit: '-' });
  } else failed('intake', intake);

  if (bundles.ok) {
    for (const b of bundles.value) {
      const sdk = b.external.length > 0 ? 'runtime AWS SDK' : 'AWS SDK bundled';
      rows.push({ area: 'bundle', figure: `${b.name} (${sdk}): minified / gzip`, value: `${kb(b.bytes)} / ${kb(b.gzipBytes)}`, limit: '-' });
      rows.push({ area: 'bundle', figure: `${b.name}: module load p50 / max (fresh process)`, value: `${fmt(b.loadMsP50)} / ${fmt(b.loadMsMax)} ms`, limit: '-' });
    }
  } else failed('bundles', bundles);

  if (client.ok) {
    rows.push({ area: 'Open API client', figure: 'call p50 vs bare undici (ratio)', value: fmt(client.value.ratio, 2), limit: '<= 1.10' });
    rows.push({ area: 'Open API client', figure: `calls/s (${client.value.throughput.concurrency} at once)`, value: fmt(client.value.throughput.clientCallsPerSecond, 0), limit: '-' });
  } else failed('Open API client', client);

  if (emulator.ok) {
    rows.push({ area: 'emulator', figure: `requests/s (${emulator.value.connections} connections)`, value: fmt(emulator.value.requestsPerSecond, 0), limit: '-' });
    if (emulator.value.emulatorCpuMsPerRequest !== undefined) {
      rows.push({ area: 'emulator', figure: 'CPU ms per request', value: fmt(emulator.value.emulatorCpuMsPerRequest, 3), limit: '-' });
    }
  } else failed('emulator', emulator);

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
  };

  await writeFile(join(HERE, 'results.md'), resultsMarkdown(rows, figures, quick, host, seconds));
  for (const line of table(rows)) console.log(line);
  console.log(`(${quick ? 'quick' : 'full'} run, ${seconds} s; written to bench/results.md)`);
  console.log(JSON.stringify(figures));
}

function resultsMarkdown(rows: Row[], figures: unknown, quick: boolean, host: ReturnType<typeof machine>, seconds: number): string {
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
    `- load average (1 min) at start: ${host.loadAverage1m}. Everything runs in one process on these cores: emulator, dynalite, worker and`,
    '  floor share them, so a loaded machine lowers every throughput figure; ratios measured side by side hold up better.',
    '',
    '## Figures',
    '',
    ...markdownTable(rows),
    '',
    '## How they are measured',
    '',
    '- **Cost per event** (bench/worker.ts): after 20 warm-up purchases (token cached, pools warm), events go one at a time',
    '  through `functions/process-events.ts` `makeHandler` as SQS FIFO records. Open API calls are the emulator\'s own',
    '  request counts (`/__emulator/stats`, token requests included); DynamoDB requests are counted by a middleware on the',
    '  SDK client the ledger uses. The first refund of an order also reads the point history once, to learn the exact',
    '  credited figure (the purchase stores only the balance difference, to stay at 2 calls).',
    '- **Worker vs floor**: the same number of purchases, 8 at a time, batches of one record. The floor does only the',
    '  bare work of a purchase in the same process: 2 raw undici requests (lookup by external id, points calculation)',
    '  and 2 DynamoDB writes (conditional put, update). Rounds alternate floor and worker; the best round of each counts.',
    '  The worker\'s client has its limiter opened wide here: the limiter is measured in the next run. The split of one',
    '  purchase at a time (time inside DynamoDB requests, inside Open API calls, and the rest) shows where the gap is:',
    '  the ledger\'s conditional updates (lease conditions, returned records) cost dynalite, a JavaScript DynamoDB in',
    '  this same process, more than the floor\'s plain put/update (compare the DynamoDB parts); in AWS a write costs',
    '  mostly its network round trip either way.',
    '- **Rate budget**: a backlog of purchases through a worker whose client has the production budget (2000 requests',
    '  per minute per endpoint), 32 events in flight. To see minutes in seconds, one scaled clock (K x real time) drives',
    '  both sides: the client\'s limiter (`now` and `sleep`) and the emulator\'s clock, set through',
    '  `POST /__emulator/clock` every 20 ms. K is chosen from the measured throughput T so that the budget, not the',
    '  worker, is the bound: a minute\'s 2000 calls take 2000 / T real seconds, which must fit in 60 / K, so K = 0.7 x 0.03 T',
    '  (at least 1, at most 20). The scaled clock starts 1 s after a minute boundary, so the limiter\'s',
    '  sliding 60 s windows line up with the emulator\'s clock minutes. `max_per_minute` is the emulator\'s own figure;',
    '  the sustained rate is the mean of the complete clock minutes of calculation calls (counted when each call returns),',
    '  as a share of 2000. The event time shows what waiting in the limiter costs an event under a backlog.',
    '- **Intake latency** (bench/intake-latency.ts): signed Shopify orders and POS sales (the chaos scenario\'s payloads),',
    '  one at a time on a keep-alive connection, to the local API Gateway stand-in (local/http) in front of the real',
    '  receive-webhook handler, until the 2xx; the queue behind only records the message. 100 warm-up requests.',
    '- **Bundles** (bench/bundles.ts): each function built as the stack builds it (esbuild, ESM, minified; the receiver',
    '  leaves the AWS SDK to the Lambda runtime, the worker bundles the pinned one); load time = evaluating the module in a',
    '  fresh Node process (the handlers build their dependencies on the first event, not at import), with a module left',
    '  out loaded from node_modules as the runtime loads its own.',
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
