import { createPrivacyRequests } from '../shared/privacy/index.js';
import { checkLedger, collectEvidence, failuresOf, readUpstream } from './checks.js';
import { createMessageTrail, doubledEvidence, doubledMarkers, type MessageTrail } from './doubled.js';
import { compareWithModel } from './compare.js';
import { checkShares } from './shares-check.js';
import { deliverAll } from './deliver.js';
import type { Disturbance } from './disturbance.js';
import { type Drained, drain } from './drain.js';
import { emulatorAdmin, routeRequestsOf, upstreamReader } from './emulator-admin.js';
import { CHAOS_CLIENT, CHAOS_CLIENT_TIMEOUT_MS, CHAOS_SECRETS, chaosEmulatorConfig } from './emulator-config.js';
import { createFaultInjector, type FaultInjector } from './faults.js';
import { doublingMismatches, type FinalAudit, runFinalAudit } from './final-audit.js';
import { tillMirrorCheck } from './till-mirror-check.js';
import { createGatewayStretch } from './gateway.js';
import { createHoldBackMeter } from './hold-back.js';
import { createLateCommits, type LateCommits } from './late-commits.js';
import { createLatencyMeter } from './latency.js';
import { linkedAt } from './linked-at.js';
import { createLinks } from './links.js';
import type { LostDeliveries } from './lost-deliveries.js';
import { buildModel, type Model } from './model.js';
import { createOutage, type Outage, type OutageFault } from './outage.js';
import { createRandom, type Random } from './prng.js';
import { createRedactions } from './redactions.js';
import { createRedemptionClicks } from './redemption-clicks.js';
import type { ChaosResult, UnfinishedEvent } from './report.js';
import { generateScenario, type Scenario } from './scenario.js';
import { createSmaregiSender, smaregiDisturbance } from './smaregi.js';
import { applyMissedEdits, createMissedEdits, type MissedEdits, planMissedEdits } from './smaregi-edits.js';
import { type ChaosStack, type ChaosStackOptions, startChaosStack } from './stack.js';
import { startTickers } from './tickers.js';
import type { SenderSecrets } from './webhooks.js';

export { CHAOS_CLIENT, CHAOS_CLIENT_TIMEOUT_MS, CHAOS_SECRETS, chaosEmulatorConfig } from './emulator-config.js';

/**
 * One chaos run: generate the scenario, bring up the real stack (receiver, local FIFO queue, worker,
 * emulator, dynalite), deliver every webhook while faults fire (deliver.ts), drain the queue
 * (drain.ts: redriving the dead-letter list as an operator would once the faults stop), then compare
 * the membership service with the independent model and check that every event has a final outcome in
 * the ledger (checks.ts).
 */

export interface ChaosOptions {
  events: number;
  seed: number;
  /** Probability of arming an emulator fault before each delivery. */
  faultRate?: number;
  /** Probability that a protocol step crashes the worker. */
  crashRate?: number;
  /** Share of queued messages also delivered at once to a second worker container. */
  directDuplicateRate?: number;
  /** Webhook requests in flight at once. */
  senders?: number;
  /** Give up draining the queue after this long (the run then reports the stuck events as unfinished). */
  drainTimeoutMs?: number;
  log?: (line: string) => void;
  /** Runs once the queue is drained and compared, before the stack stops (e.g. `npm run audit`'s code). */
  afterRun?: (stack: ChaosStack) => Promise<void>;
  /** Move dead-lettered messages back to the queue once the faults stop, as an operator would (`--redrive`). */
  redrive?: boolean;
  /** Simulated seconds during which every Open API route fails, from the middle of the deliveries (`--outage`). */
  outageSeconds?: number;
  /** How the Open API fails during the outage (`--outage-fault`, default error_500). */
  outageFault?: OutageFault;
  /** Simulated seconds of 429s then HTML 503 pages from a third of the deliveries (`--gateway`, gateway.ts). */
  gatewaySeconds?: number;
  /** Starts the stack; the default is the local stack of `npm start` (stack.ts). */
  startStack?: (options: ChaosStackOptions) => Promise<ChaosStack>;
  /** The "lost deliveries" fault (lost-deliveries.ts): webhooks Shopify never sends, repaired by reconcile. */
  lostDeliveries?: LostDeliveries;
  /** Run the Smaregi reconcile that finds the run's missed edits (smaregi-edits.ts; default true; false must fail the run). */
  smaregiReconcile?: boolean;
  /** Late commits and a lagging history (late-commits.ts; default true; `--no-late-commits` turns them off). */
  lateCommits?: boolean;
  /** Late commits far beyond the in-doubt horizon among them (default true; a short run may leave them out to stay short). */
  lateCommitsBeyond?: boolean;
  /** The final audit, once every late commit has landed (default: shared/audit's, as `npm run audit` runs it). */
  finalAudit?: (stack: ChaosStack) => Promise<FinalAudit>;
}

/** The parts the stack's hooks reach, set as the run brings each up (the hooks fire only once webhooks flow). */
interface Live {
  injector?: FaultInjector | undefined;
  outage?: Outage | undefined;
  links?: ReturnType<typeof createLinks> | undefined;
  stack?: ChaosStack | undefined;
  now: () => number;
}

interface Run {
  options: ChaosOptions;
  scenario: Scenario;
  model: Model;
  random: Random;
  log: (line: string) => void;
  live: Live;
  started: number;
}

interface Meters {
  holdBack: ReturnType<typeof createHoldBackMeter>;
  latency: ReturnType<typeof createLatencyMeter>;
  trail: MessageTrail;
}

/** Everything that acts on the stack during a run, besides the stack itself. */
interface Parts {
  stack: ChaosStack;
  admin: ReturnType<typeof emulatorAdmin>;
  disturbances: Disturbance[];
  secrets: SenderSecrets;
  missedEdits: MissedEdits | undefined;
  injector: FaultInjector;
  links: ReturnType<typeof createLinks>;
  redactions: ReturnType<typeof createRedactions>;
  redemptions: ReturnType<typeof createRedemptionClicks>;
  lateCommits: LateCommits | undefined;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const started = Date.now();
  const rawLog = options.log ?? (() => undefined);
  const log = (line: string): void => rawLog(`${line} [${((Date.now() - started) / 1000).toFixed(1)} s]`);
  const scenario = generateScenario({ events: options.events, seed: options.seed, provisional: options.lostDeliveries === undefined });
  const model = buildModel(scenario);
  const random = createRandom(options.seed).fork('run');
  const run: Run = { options, scenario, model, random, log, live: { now: Date.now }, started };
  const meters = createMeters(run);
  const direct = new Set<Promise<void>>();
  const stack = await bringUpStack(run, meters, direct);
  run.live.stack = stack;
  run.live.now = stack.clock.now;
  const simulatedFrom = stack.clock.now();
  try {
    const parts = await setUpParts(run, stack);
    log(`chaos: seed ${options.seed}, ${scenario.events.length} events, ${scenario.deliveries.length} deliveries`);
    const unfinished: UnfinishedEvent[] = [];
    const drained = await playOut(run, parts, unfinished, direct);
    run.live.injector = undefined;
    log('chaos: queue drained; comparing');
    return await resultOf(run, parts, meters, { unfinished, drained, simulatedFrom });
  } finally {
    await stack.close();
  }
}

function createMeters({ scenario, live }: Run): Meters {
  const holdBack = createHoldBackMeter({ posSource: 'pos', now: () => live.now(), excluded: () => live.outage?.window() });
  const latency = createLatencyMeter({
    now: () => live.now(),
    excluded: () => live.outage?.window(),
    linkedAt: linkedAt(scenario, () => live.links?.report().linkedAt),
  });
  return { holdBack, latency, trail: createMessageTrail(() => live.now()) };
}

/** Starts the stack with the run's hooks: the meters, the worker's crash points, the direct duplicates. */
async function bringUpStack({ options, scenario, random, live }: Run, { holdBack, latency, trail }: Meters, direct: Set<Promise<void>>) {
  const startStack = options.startStack ?? startChaosStack;
  const duplicateRandom = random.fork('direct duplicates');
  return await startStack({
    emulatorConfig: chaosEmulatorConfig(scenario),
    client: CHAOS_CLIENT,
    secrets: CHAOS_SECRETS,
    clientTimeoutMs: CHAOS_CLIENT_TIMEOUT_MS,
    campaign: scenario.campaign,
    checkpoint: (step) => live.injector?.checkpoint(step),
    onDeleted: (message) => {
      holdBack.onDeleted(message);
      live.outage?.onDeleted(message);
      trail.deleted(message);
    },
    onFirstReceived: (message) => latency.onFirstReceived(message),
    onSetAside: (message) => {
      latency.onSetAside(message);
      trail.setAside(message);
    },
    onQueued: (message) => {
      holdBack.onQueued(message);
      latency.onQueued(message.body);
      trail.queued(message);
      // While faults fly, some messages also go straight to a second worker, racing the queue's copy.
      if (!live.injector || !live.stack || !duplicateRandom.chance(options.directDuplicateRate ?? 0.1)) return;
      live.injector.tally.directDuplicates += 1;
      trail.direct(message);
      const task = live.stack.deliverDirectly(message).finally(() => direct.delete(task));
      direct.add(task);
    },
  });
}

/** The disturbances, the fault injector and the scripted customers' actions, in the order their random streams are forked. */
async function setUpParts(run: Run, stack: ChaosStack): Promise<Parts> {
  const admin = emulatorAdmin(stack.emulatorUrl);
  const disturbances: Disturbance[] = [];
  const routeRequests = () => routeRequestsOf(admin, CHAOS_CLIENT.clientId);
  // First in the list: after the drain it waits for the late commits to land before the others' last steps.
  const lateCommits =
    run.options.lateCommits === false
      ? undefined
      : createLateCommits({
          admin,
          clientId: CHAOS_CLIENT.clientId,
          clock: stack.clock,
          horizonMs: stack.timing.inDoubtSeconds * 1000,
          random: run.random.fork('late commits'),
          routeRequests,
          beyond: run.options.lateCommitsBeyond !== false,
          log: run.log,
        });
  if (lateCommits) disturbances.push(lateCommits);
  addUpstreamFailures(run, stack, admin, disturbances);
  const smaregi = await addSmaregi(run, stack, disturbances);
  const injector = createFaultInjector(run.random, admin, {
    faultRate: run.options.faultRate ?? 0.25,
    crashRate: run.options.crashRate ?? 0.03,
    clientTimeoutMs: CHAOS_CLIENT_TIMEOUT_MS,
    routeRequests,
    ...(lateCommits ? { lateCommits } : {}),
  });
  run.live.injector = injector;
  const customers = addCustomerActions(run, stack, admin, injector, disturbances);
  return { stack, admin, disturbances, injector, ...smaregi, ...customers, lateCommits };
}

/** The Open API outage (`--outage`) and the gateway's stretch of 429s and HTML 503s (`--gateway`). */
function addUpstreamFailures(run: Run, stack: ChaosStack, admin: Parts['admin'], disturbances: Disturbance[]): void {
  const { options, log } = run;
  if (options.outageSeconds !== undefined && options.outageSeconds > 0) {
    run.live.outage = createOutage({
      seconds: options.outageSeconds,
      ...(options.outageFault ? { fault: options.outageFault } : {}),
      admin,
      clock: stack.clock,
      clientId: CHAOS_CLIENT.clientId,
      backlog: () => {
        const s = stack.queue.stats();
        return s.visible + s.processing + s.waitingRetry;
      },
      receives: () => stack.queue.stats().received,
      log,
    });
    disturbances.push(run.live.outage);
  }
  if (options.gatewaySeconds) disturbances.push(createGatewayStretch({ ...stack, seconds: options.gatewaySeconds, log }));
}

/** Smaregi's tills: the stand-in holds each transaction's state; its API throttles and expires tokens. */
async function addSmaregi(
  { options, scenario, model, random, log }: Run,
  stack: ChaosStack,
  disturbances: Disturbance[],
): Promise<Pick<Parts, 'secrets' | 'missedEdits'>> {
  if (!stack.smaregi) return { secrets: CHAOS_SECRETS, missedEdits: undefined };
  const smaregi = createSmaregiSender(stack.smaregi);
  await smaregi.seedCustomers(scenario.customers);
  disturbances.push(smaregiDisturbance(stack.smaregi.url, random.fork('smaregi faults')));
  const edits = planMissedEdits(scenario, model);
  applyMissedEdits(model, edits);
  const reconcile = options.smaregiReconcile ?? true;
  const missedEdits = createMissedEdits({ edits, stack, posted: smaregi.posted, put: smaregi.put, reconcile, log });
  disturbances.push(missedEdits);
  return { secrets: { ...CHAOS_SECRETS, smaregi }, missedEdits };
}

/** What customers do besides buying: link their membership, ask for redaction, redeem points. */
function addCustomerActions(
  run: Run,
  stack: ChaosStack,
  admin: Parts['admin'],
  injector: FaultInjector,
  disturbances: Disturbance[],
): Pick<Parts, 'links' | 'redactions' | 'redemptions'> {
  const { scenario, model, random, log } = run;
  const links = createLinks({
    scenario,
    intakeUrl: stack.intakeUrl,
    ledger: stack.ledger,
    admin,
    reader: upstreamReader({ baseUrl: stack.emulatorUrl, ...CHAOS_CLIENT }),
    clientId: CHAOS_CLIENT.clientId,
    shopifySecret: CHAOS_SECRETS.shopify,
    tally: injector.tally,
    random: random.fork('links'),
    clock: stack.clock.now,
    log,
  });
  run.live.links = links;
  disturbances.push(links);
  const redactions = createRedactions({
    scenario,
    intakeUrl: stack.intakeUrl,
    shopifySecret: CHAOS_SECRETS.shopify,
    requests: createPrivacyRequests({
      client: stack.ledgerTable.documentClient,
      tableName: stack.ledgerTable.tableName,
      clock: stack.clock.now,
    }),
    random: random.fork('redactions'),
    log,
  });
  disturbances.push(redactions);
  const redemptions = createRedemptionClicks({
    scenario,
    model,
    stack,
    admin,
    newReader: () => upstreamReader({ baseUrl: stack.emulatorUrl, ...CHAOS_CLIENT }),
    shopifySecret: CHAOS_SECRETS.shopify,
    random: random.fork('redemptions'),
    log,
  });
  disturbances.push(redemptions);
  return { links, redactions, redemptions };
}

/** Delivers every webhook while the clock and lease tickers run, then drains the queue. */
async function playOut(run: Run, parts: Parts, unfinished: UnfinishedEvent[], direct: Set<Promise<void>>): Promise<Drained> {
  const { options, scenario, log } = run;
  const { stack, injector, disturbances } = parts;
  const holdsClock = () => disturbances.some((d) => d.holdsClock());
  const stopTickers = startTickers(parts, holdsClock, log);
  try {
    await deliverAll({
      scenario,
      stack,
      injector,
      senders: options.senders ?? 4,
      unfinished,
      log,
      disturbances,
      holdsClock,
      lostDeliveries: options.lostDeliveries,
      secrets: parts.secrets,
    });
    if (run.live.outage) injector.tally.outages += 1;
    await options.lostDeliveries?.afterDeliveries(stack, log);
    // Faults stop; the queue drains; only with `redrive` is the dead-letter list moved back.
    await Promise.all(direct);
    const drained = await drain({
      stack,
      injector,
      admin: parts.admin,
      timeoutMs: options.drainTimeoutMs ?? 120_000,
      log,
      redrive: options.redrive ?? false,
      mayExpireLeases: () => !holdsClock(),
    });
    for (const d of disturbances) await d.afterDrain();
    // The ticker runs every minute on its own and a drain may end between two: its last word before the
    // comparison (refunds before a fulfilment whose message was dead-lettered among them: before-earn.ts).
    const earned = await stack.earnDue().catch((e: unknown) => log(`chaos: provisional ticker failed: ${(e as Error).message}`));
    if (earned && earned.due > 0) log(`chaos: provisional ticker: due=${earned.due} earned=${earned.done} retry=${earned.retry}`);
    return drained;
  } finally {
    stopTickers();
  }
}

interface Played {
  unfinished: UnfinishedEvent[];
  drained: Drained;
  simulatedFrom: number;
}

/** Compares the membership service and the ledger with the model and builds the run's result. */
async function resultOf(run: Run, parts: Parts, meters: Meters, { unfinished, drained, simulatedFrom }: Played): Promise<ChaosResult> {
  const { options, scenario, model } = run;
  const { stack, admin, injector, disturbances, links } = parts;
  // The final audit first (every late commit has landed: late-commits.ts), then the check of what it left.
  const audit = await (options.finalAudit ?? runFinalAudit)(stack);
  run.log(`chaos: final ${audit.summary}`);
  const tillMirror = await tillMirrorCheck(stack, scenario, parts.redemptions.customers());
  run.log(`chaos: ${tillMirror.line}`);
  const observed = await readUpstream(scenario, model, stack.emulatorUrl);
  const comparison = compareWithModel(model, observed);
  const ledgerCheck = await checkLedger(scenario, model, stack.ledger);
  const sharesCheck = await checkShares(scenario, stack.ledger);
  unfinished.push(...ledgerCheck.unfinished, ...sharesCheck.unfinished, ...failuresOf(parts, options.redrive ?? false));
  const lateCommits = parts.lateCommits?.report();
  const mismatches = [
    ...comparison.mismatches,
    ...ledgerCheck.mismatches,
    ...sharesCheck.mismatches,
    ...((await parts.missedEdits?.check()) ?? []),
    ...(await parts.redemptions.check()),
    ...tillMirror.mismatches,
    ...doublingMismatches(comparison.observed, audit, lateCommits?.drawnBeyond ?? 0),
  ];
  const unfinishedOrders = unfinished.flatMap((u) => {
    const event = scenario.events.find((e) => e.key === u.key);
    return event ? [event.orderId] : [];
  });
  const evidence = await collectEvidence(scenario, observed, stack.ledger, [
    ...mismatches.flatMap((m) => (m.orderId ? [m.orderId] : [])),
    ...unfinishedOrders,
  ]);
  // More entries doubled than commits drawn beyond the horizon: which is unexplained cannot be told, so each gets its evidence.
  if (comparison.observed.doubled > (lateCommits?.drawnBeyond ?? 0))
    evidence.push(...(await doubledEvidence(doubledMarkers(observed), { scenario, observed, ledger: stack.ledger, trail: meters.trail })));
  const stats = await admin.stats();
  await options.afterRun?.(stack);
  const routes = stats.clients[CHAOS_CLIENT.clientId]?.routes ?? {};
  const queueStats = stack.queue.stats();
  return {
    seed: options.seed,
    scenario: {
      ...scenario.counts,
      events: scenario.events.length,
      deliveries: scenario.deliveries.length,
      customers: scenario.customers.length,
    },
    faults: injector.tally,
    points: { expected: model.totals, observed: { credited: comparison.observed.credited, debited: comparison.observed.debited } },
    outcomes: ledgerCheck.outcomes,
    queue: {
      deadLettered: drained.deadLettered,
      redriven: drained.redriven,
      received: queueStats.received,
      sent: queueStats.sent,
      deduplicated: queueStats.deduplicated,
      deferrals: queueStats.visibilityChanges,
    },
    deadLettered: drained.deadLettered,
    timing: { ...stack.timing },
    simulatedSeconds: (stack.clock.now() - simulatedFrom) / 1000,
    holdBack: meters.holdBack.report(),
    latency: await meters.latency.report(stack.ledger),
    ...recoveryOf(run.live.outage),
    disturbances: disturbances.flatMap((d) => d.reportLines()),
    links: links.report(),
    audit,
    ...(lateCommits ? { lateCommits } : {}),
    // The audit's own count once it reverses; until then what the final check saw doubled.
    reversed: audit.reversed ?? comparison.observed.doubled,
    upstreamRequests: Object.fromEntries(Object.entries(routes).map(([route, s]) => [route, s.total])),
    mismatches,
    evidence,
    unfinished,
    durationMs: Date.now() - run.started,
  };
}

/** The verdict line's recovery figures, when the run had an outage. */
function recoveryOf(outage: Outage | undefined): Pick<ChaosResult, 'recovery'> {
  const report = outage?.report();
  return report ? { recovery: { backlog: report.backlogAtEnd, drainedSeconds: report.drainSeconds } } : {};
}
