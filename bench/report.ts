import { cpus, freemem, loadavg, release, totalmem, type as osType } from 'node:os';

/** How `npm run bench` shows its figures: the machine it ran on, the table, and bench/results.md. */

export interface Row {
  area: string;
  figure: string;
  value: string;
  limit: string;
}

export function machine() {
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

export function table(rows: Row[]): string[] {
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

export function resultsMarkdown(
  rows: Row[],
  figures: unknown,
  quick: boolean,
  host: ReturnType<typeof machine>,
  seconds: number,
  versusSection: string[],
  history: HistoryLine[] = [],
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
    "  load + `depsFromEnv` with the stack's environment (the DynamoDB/SQS clients, the Open API client, logger,",
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
    ...spreadLines(history),
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

/** The figures whose spread from run to run the report shows, one line per run (bench/history.jsonl). */
export interface HistoryLine {
  date: string;
  quick: boolean;
  loadAverage1m: number;
  /** Worker / floor, CPU-bound. */
  cpuRatio?: number;
  /** Worker / floor, latency model. */
  latencyRatio?: number;
  /** The worker's load with its SDK / the SDK alone. */
  workerLoadRatio?: number;
  workerLoadMsP50?: number;
}

const RECENT_RUNS = 5;

/** Run-to-run spread, from the runs themselves (the last few lines of bench/history.jsonl, this one included). */
function spreadLines(history: HistoryLine[]): string[] {
  const recent = history.slice(-RECENT_RUNS);
  if (recent.length < 2) return ['- **Run-to-run spread**: one run recorded so far (bench/history.jsonl); one run is one sample.'];
  const series = (pick: (h: HistoryLine) => number | undefined) =>
    recent.map((h) => (pick(h) === undefined ? '-' : String(pick(h)))).join(', ');
  return [
    `- **Run-to-run spread**, the last ${recent.length} runs (bench/history.jsonl, written by each run; oldest first;`,
    `  load average at start ${series((h) => h.loadAverage1m)}): CPU-bound worker / floor ${series((h) => h.cpuRatio)};`,
    `  latency model ${series((h) => h.latencyRatio)}; worker load / its SDK ${series((h) => h.workerLoadRatio)}`,
    `  (worker load p50 ${series((h) => h.workerLoadMsP50)} ms). One run is one sample.`,
  ];
}
