import { request } from 'undici';
import type { Ledger, OrderRecord, RefundRecord } from '../shared/ledger/index.js';
import { compareWithModel, type Mismatch, type ObservedCustomer } from './compare.js';
import { emulatorAdmin, upstreamReader } from './emulator-admin.js';
import type { Disturbance } from './disturbance.js';
import { createFaultInjector, type FaultInjector } from './faults.js';
import { createHoldBackMeter } from './hold-back.js';
import { createLatencyMeter, type LinkedAt } from './latency.js';
import { createOutage, type Outage, type OutageFault } from './outage.js';
import { createGatewayStretch } from './gateway.js';
import { buildModel, type Model } from './model.js';
import { createRandom } from './prng.js';
import type { ChaosResult, UnfinishedEvent } from './report.js';
import { CHAOS_RANKS, generateScenario, type EventSpec, type Scenario } from './scenario.js';
import type { LostDeliveries } from './lost-deliveries.js';
import { startChaosStack, type ChaosStack, type ChaosStackOptions } from './stack.js';
import { renderDelivery, type SenderSecrets } from './webhooks.js';
import { createSmaregiSender, smaregiCustomerCode, smaregiDisturbance } from './smaregi.js';
import { applyMissedEdits, createMissedEdits, type MissedEdits, planMissedEdits } from './smaregi-edits.js';
import { squareCustomerId } from './square.js';
import { createLinks } from './links.js';
import { createRedemptionClicks } from './redemption-clicks.js';
import { createRedactions } from './redactions.js';
import { createPrivacyRequests } from '../shared/privacy/index.js';

/**
 * One chaos run: generate the scenario, bring up the real stack (receiver, local FIFO queue, worker,
 * emulator, dynalite), deliver every webhook while faults fire, drain the queue (redriving the
 * dead-letter list as an operator would once the faults stop), then compare the membership service
 * with the independent model and check that every event has a final outcome in the ledger.
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
}

export const CHAOS_CLIENT = { clientId: 'chaos-client', clientSecret: 'chaos-secret' } as const;
export const CHAOS_SECRETS: SenderSecrets = {
  shopify: 'chaos-shopify-secret',
  pos: 'chaos-pos-secret-0123456789abcdef',
  square: 'chaos-square-key',
};
/** The worker's Open API response timeout in the run: a `delay` fault holds answers longer. */
export const CHAOS_CLIENT_TIMEOUT_MS = 1000;

/** The emulator configuration of a run: the scenario's registered customers with their ranks. */
export function chaosEmulatorConfig(scenario: Scenario): unknown {
  return {
    clients: [
      {
        client_id: CHAOS_CLIENT.clientId,
        client_secrets: [CHAOS_CLIENT.clientSecret],
        default_rank: 'regular',
        ranks: CHAOS_RANKS,
        external_keys: ['shopify', 'pos_card', 'square', 'smaregi'],
        point_expiry_days: 365,
        members: scenario.customers
          .filter((c) => c.registered)
          .map((c) => ({
            login_id: c.loginId,
            password: 'chaos-pass',
            rank: c.rank,
            external_ids: {
              // A member linked through the App Proxy mid-run has no shop account yet (links.ts).
              ...(c.linkLater === 'app_proxy' ? {} : { shopify: c.shopifyId }),
              pos_card: c.posCard,
              square: squareCustomerId(c),
              smaregi: smaregiCustomerCode(c),
            },
          })),
      },
    ],
  };
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const started = Date.now();
  const rawLog = options.log ?? (() => undefined);
  const log = (line: string): void => rawLog(`${line} [${((Date.now() - started) / 1000).toFixed(1)} s]`);
  const scenario = generateScenario({ events: options.events, seed: options.seed });
  const model = buildModel(scenario);
  const random = createRandom(options.seed).fork('run');
  const startStack = options.startStack ?? startChaosStack;

  let injectorRef: FaultInjector | undefined;
  let outageRef: Outage | undefined;
  let nowRef: () => number = Date.now;
  const holdBack = createHoldBackMeter({ posSource: 'pos', now: () => nowRef(), excluded: () => outageRef?.window() });
  let linksRef: ReturnType<typeof createLinks> | undefined;
  const latency = createLatencyMeter({
    now: () => nowRef(),
    excluded: () => outageRef?.window(),
    linkedAt: linkedAt(scenario, () => linksRef?.report().linkedAt),
  });
  const duplicateRandom = random.fork('direct duplicates');
  const direct = new Set<Promise<void>>();
  // onQueued needs the stack it is given to; it fires only once webhooks flow, after the start.
  let stackRef: ChaosStack | undefined;
  const stack = await startStack({
    emulatorConfig: chaosEmulatorConfig(scenario),
    client: CHAOS_CLIENT,
    secrets: CHAOS_SECRETS,
    clientTimeoutMs: CHAOS_CLIENT_TIMEOUT_MS,
    checkpoint: (step) => injectorRef?.checkpoint(step),
    onDeleted: (message) => {
      holdBack.onDeleted(message);
      outageRef?.onDeleted(message);
    },
    onFirstReceived: (message) => latency.onFirstReceived(message),
    onSetAside: (message) => latency.onSetAside(message),
    onQueued: (message) => {
      holdBack.onQueued(message);
      latency.onQueued(message.body);
      // While faults fly, some messages also go straight to a second worker, racing the queue's copy.
      if (!injectorRef || !stackRef || !duplicateRandom.chance(options.directDuplicateRate ?? 0.1)) return;
      injectorRef.tally.directDuplicates += 1;
      const task = stackRef.deliverDirectly(message).finally(() => direct.delete(task));
      direct.add(task);
    },
  });
  stackRef = stack;
  nowRef = stack.clock.now;
  const simulatedFrom = stack.clock.now();
  try {
    const admin = emulatorAdmin(stack.emulatorUrl);
    const disturbances: Disturbance[] = [];
    if (options.outageSeconds !== undefined && options.outageSeconds > 0) {
      outageRef = createOutage({
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
      disturbances.push(outageRef);
    }
    if (options.gatewaySeconds) disturbances.push(createGatewayStretch({ ...stack, seconds: options.gatewaySeconds, log }));
    // Smaregi's tills: the stand-in holds each transaction's state; its API throttles and expires tokens.
    let secrets: SenderSecrets = CHAOS_SECRETS;
    let missedEdits: MissedEdits | undefined;
    if (stack.smaregi) {
      const smaregi = createSmaregiSender(stack.smaregi);
      await smaregi.seedCustomers(scenario.customers);
      secrets = { ...CHAOS_SECRETS, smaregi };
      disturbances.push(smaregiDisturbance(stack.smaregi.url, random.fork('smaregi faults')));
      const edits = planMissedEdits(scenario, model);
      applyMissedEdits(model, edits);
      const reconcile = options.smaregiReconcile ?? true;
      missedEdits = createMissedEdits({ edits, stack, posted: smaregi.posted, put: smaregi.put, reconcile, log });
      disturbances.push(missedEdits);
    }
    const injector = createFaultInjector(random, admin, {
      faultRate: options.faultRate ?? 0.25,
      crashRate: options.crashRate ?? 0.03,
      clientTimeoutMs: CHAOS_CLIENT_TIMEOUT_MS,
      requestsMade: async () =>
        Object.values((await admin.stats()).clients[CHAOS_CLIENT.clientId]?.routes ?? {}).reduce((n, r) => n + r.total, 0),
    });
    injectorRef = injector;
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
    linksRef = links;
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
    log(`chaos: seed ${options.seed}, ${scenario.events.length} events, ${scenario.deliveries.length} deliveries`);

    const unfinished: UnfinishedEvent[] = [];
    // Whenever the worker is idle but messages wait for a retry, let every lease run out: crashed
    // attempts' leases then expire and are taken over (see stack.ts for why this is safe).
    const holdsClock = () => disturbances.some((d) => d.holdsClock());
    const leaseTicker = setInterval(() => {
      const s = stack.queue.stats();
      if (!holdsClock() && s.waitingRetry > 0 && s.receivableGroups === 0 && stack.expireLeases()) injector.tally.leaseExpiries += 1;
    }, 250);
    // Simulated time: while nothing runs, jump to the next moment something is due (a deferred message
    // coming back), never past a disturbance's end; the disturbances end themselves on time.
    let ticking = false;
    const clockTicker = setInterval(() => {
      if (ticking) return;
      ticking = true;
      void (async () => {
        for (const d of disturbances) await d.tick();
        stack.jumpToNextDue(earliest(disturbances.map((d) => d.jumpLimit())), earliest(disturbances.map((d) => d.nextDueAt?.())));
      })()
        .catch((error: unknown) => log(`chaos: clock tick failed: ${(error as Error).message}`))
        .finally(() => {
          ticking = false;
        });
    }, 20);
    let drained: { deadLettered: number; redriven: number };
    try {
      await deliverAll(
        scenario,
        stack,
        injector,
        options.senders ?? 4,
        unfinished,
        log,
        disturbances,
        holdsClock,
        options.lostDeliveries,
        secrets,
      );
      if (outageRef) injector.tally.outages += 1;
      await options.lostDeliveries?.afterDeliveries(stack, log);
      // Faults stop; the queue drains; only with `redrive` is the dead-letter list moved back.
      await Promise.all(direct);
      drained = await drain(stack, injector, admin, options.drainTimeoutMs ?? 120_000, log, options.redrive ?? false, () => !holdsClock());
      for (const d of disturbances) await d.afterDrain();
    } finally {
      clearInterval(leaseTicker);
      clearInterval(clockTicker);
    }
    injectorRef = undefined;

    log('chaos: queue drained; comparing');
    const observed = await readUpstream(scenario, model, stack.emulatorUrl);
    const comparison = compareWithModel(model, observed);
    const ledgerCheck = await checkLedger(scenario, model, stack.ledger);
    unfinished.push(...ledgerCheck.unfinished);
    for (const failure of links.report().failures) unfinished.push({ key: 'link', why: failure });
    for (const failure of redactions.report().failures) unfinished.push({ key: 'redaction', why: failure });
    for (const failure of redemptions.report().failures) unfinished.push({ key: 'redemption', why: failure });
    for (const letter of stack.queue.deadLetters()) {
      const eventId = (JSON.parse(letter.body) as { eventId?: string }).eventId ?? letter.messageId;
      unfinished.push({
        key: eventId,
        why: `in the dead-letter list${options.redrive ? ' after redrives' : ''}${letter.lastError ? `: ${letter.lastError}` : ''}`,
      });
    }

    const mismatches = [
      ...comparison.mismatches,
      ...ledgerCheck.mismatches,
      ...((await missedEdits?.check()) ?? []),
      ...(await redemptions.check()),
    ];
    const unfinishedOrders = unfinished.flatMap((u) => {
      const event = scenario.events.find((e) => e.key === u.key);
      return event ? [event.orderId] : [];
    });
    const evidence = await collectEvidence(scenario, observed, stack.ledger, [
      ...mismatches.flatMap((m) => (m.orderId ? [m.orderId] : [])),
      ...unfinishedOrders,
    ]);
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
      holdBack: holdBack.report(),
      latency: await latency.report(stack.ledger),
      ...recoveryOf(outageRef),
      disturbances: disturbances.flatMap((d) => d.reportLines()),
      links: links.report(),
      upstreamRequests: Object.fromEntries(Object.entries(routes).map(([route, s]) => [route, s.total])),
      mismatches,
      evidence,
      unfinished,
      durationMs: Date.now() - started,
    };
  } finally {
    await stack.close();
  }
}

async function deliverAll(
  scenario: Scenario,
  stack: ChaosStack,
  injector: FaultInjector,
  senders: number,
  unfinished: UnfinishedEvent[],
  log: (line: string) => void,
  disturbances: Disturbance[],
  holdsClock: () => boolean,
  lostDeliveries?: LostDeliveries,
  secrets: SenderSecrets = CHAOS_SECRETS,
): Promise<void> {
  const tokenExpiryAt = new Set([Math.floor(scenario.deliveries.length / 3), Math.floor((2 * scenario.deliveries.length) / 3)]);
  const inFlight = new Set<Promise<void>>();
  let rejected = 0;
  // A quiet point that fell while a disturbance held the clock (an outage) is owed, and taken at the
  // next delivery once the clock is free: how many fall inside an outage must not depend on how fast
  // intake answers.
  let quietOwed = false;
  for (const [position, step] of scenario.deliveries.entries()) {
    // Senders keep pace with the worker, as real traffic does: faults armed now fire on work done now,
    // not on a backlog thousands of messages long.
    await waitUntil(() => {
      const s = stack.queue.stats();
      return s.visible + s.processing < MAX_BACKLOG;
    }, 10_000);
    // Now and then the senders pause until the worker is idle, so crashed attempts' leases run out
    // during the run too (the lease ticker moves the clock at such a moment), not only at the end.
    if (position > 0 && position % QUIET_EVERY === 0) quietOwed = true;
    if (quietOwed && !holdsClock()) {
      await Promise.all(inFlight);
      await waitUntil(() => stack.queue.stats().runningBatches === 0, 3_000);
      if (!holdsClock() && stack.expireLeases()) {
        injector.tally.leaseExpiries += 1;
        quietOwed = false;
      }
    }
    for (const d of disturbances) await d.beforeDelivery(position, scenario.deliveries.length);
    if (position === 0) await injector.armTokenFault();
    if (tokenExpiryAt.has(position)) await injector.expireTokens();
    await injector.maybeArm();
    const send = async (): Promise<void> => {
      if (await lostDeliveries?.intercept(scenario, step, stack, secrets)) return;
      const webhook = renderDelivery(scenario, step, secrets, Date.now());
      await webhook.prepare?.();
      const copies = Array.from({ length: step.copies }, () => sendWithRetries(stack.intakeUrl, webhook));
      for (const result of await Promise.all(copies)) {
        if (result !== 'accepted') {
          rejected += 1;
          const event = scenario.events[step.event] as EventSpec;
          unfinished.push({ key: event.key, why: `intake refused delivery ${step.deliveryId}: ${result}` });
        }
      }
    };
    const task = send().finally(() => inFlight.delete(task));
    inFlight.add(task);
    if (inFlight.size >= senders) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  log(`chaos: all deliveries sent (${rejected} refused by intake)`);
}

/** Messages waiting or in processing above which the senders hold back. */
const MAX_BACKLOG = 60;
/** Deliveries between two pauses of the senders. */
const QUIET_EVERY = 50;

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Sends one webhook the way a sender does: retried on 5xx or a lost connection, never on 4xx. */
async function sendWithRetries(baseUrl: string, webhook: ReturnType<typeof renderDelivery>): Promise<string> {
  let last = '';
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      const response = await request(`${baseUrl}${webhook.path}`, { method: 'POST', headers: webhook.headers, body: webhook.body });
      const text = await response.body.text();
      if (response.statusCode >= 200 && response.statusCode < 300) return 'accepted';
      last = `HTTP ${response.statusCode} ${text.slice(0, 200)}`;
      if (response.statusCode < 500) return last;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
  }
  return last;
}

async function drain(
  stack: ChaosStack,
  injector: FaultInjector,
  admin: ReturnType<typeof emulatorAdmin>,
  timeoutMs: number,
  log: (line: string) => void,
  redrive: boolean,
  mayExpireLeases: () => boolean,
): Promise<{ deadLettered: number; redriven: number }> {
  const deadline = Date.now() + timeoutMs;
  const ticker = setInterval(() => {
    const s = stack.queue.stats();
    log(`chaos: queue ${s.visible} visible, ${s.processing} processing, ${s.waitingRetry} waiting retry, ${s.deadLettered} dead-lettered`);
  }, 5000);
  try {
    return await drainRounds(stack, injector, admin, deadline, log, redrive, mayExpireLeases);
  } finally {
    clearInterval(ticker);
  }
}

/**
 * Waits, in real time, until the queue holds nothing (the simulated clock jumps meanwhile, so a timer
 * on the queue's clock would run out at once).
 */
async function waitIdle(stack: ChaosStack, deadline: number): Promise<boolean> {
  for (;;) {
    const s = stack.queue.stats();
    if (s.runningBatches === 0 && s.visible + s.processing + s.waitingRetry === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function drainRounds(
  stack: ChaosStack,
  injector: FaultInjector,
  admin: ReturnType<typeof emulatorAdmin>,
  deadline: number,
  log: (line: string) => void,
  redrive: boolean,
  mayExpireLeases: () => boolean,
): Promise<{ deadLettered: number; redriven: number }> {
  // First let the run play out with its faults still armed (and any outage to its end), then calm down.
  await waitIdle(stack, deadline);
  await waitUntil(mayExpireLeases, Math.max(0, deadline - Date.now()));
  await admin.clearFaults();
  injector.calm();
  let redriven = 0;
  let deadLettered = 0;
  for (let round = 0; redrive && round < 5 && Date.now() < deadline; round += 1) {
    await waitIdle(stack, deadline);
    const letters = stack.queue.deadLetters().length;
    if (letters === 0) break;
    deadLettered += letters;
    // Leases left by crashed attempts must run out before a redriven message can take them over.
    if (stack.expireLeases()) injector.tally.leaseExpiries += 1;
    redriven += stack.queue.redrive();
    log(`chaos: redrove ${letters} dead-lettered messages (round ${round + 1})`);
  }
  if (!(await waitIdle(stack, deadline))) {
    const s = stack.queue.stats();
    log(`chaos: queue not idle at the drain deadline (visible ${s.visible}, processing ${s.processing}, waiting retry ${s.waitingRetry})`);
  }
  // Those still in the list (never redriven, or dead-lettered again) count too.
  return { deadLettered: deadLettered + stack.queue.deadLetters().length, redriven };
}

async function readUpstream(scenario: Scenario, model: Model, emulatorUrl: string): Promise<ObservedCustomer[]> {
  const reader = upstreamReader({ baseUrl: emulatorUrl, ...CHAOS_CLIENT });
  const observed: ObservedCustomer[] = [];
  for (const index of model.customers.keys()) {
    const customer = scenario.customers[index];
    if (!customer) continue;
    const member = await reader.memberByExternalId('shopify', customer.shopifyId);
    observed.push({
      index,
      balance: member?.point ?? null,
      history: member ? await reader.history(member.id) : [],
    });
  }
  return observed;
}

const FINAL_ORDER_STATES = new Set(['done']);

async function checkLedger(
  scenario: Scenario,
  model: Model,
  ledger: Ledger,
): Promise<{ unfinished: UnfinishedEvent[]; mismatches: Mismatch[]; outcomes: Record<string, number> }> {
  const unfinished: UnfinishedEvent[] = [];
  const mismatches: Mismatch[] = [];
  const outcomes: Record<string, number> = {};
  const count = (name: string): void => {
    outcomes[name] = (outcomes[name] ?? 0) + 1;
  };
  for (const event of scenario.events) {
    if (event.kind === 'purchase') {
      const record: OrderRecord | undefined = await ledger.getOrder({ source: event.source, orderId: event.orderId });
      if (event.test) {
        // Test orders are answered "ignored" by intake and never queued (testOrders "ignore").
        count(record?.outcome ?? 'ignored_test');
        continue;
      }
      if (!record || !FINAL_ORDER_STATES.has(record.state) || !record.outcome) {
        unfinished.push({
          key: event.key,
          why: record ? `order state ${record.state}, ${record.lastError ?? 'no error'}` : 'no ledger record',
        });
        continue;
      }
      count(`purchase ${record.outcome}`);
      const expected = model.orders.get(event.orderId);
      if (expected?.credited && record.outcome !== 'credited') {
        mismatches.push({
          customer: event.customer,
          orderId: event.orderId,
          what: `purchase outcome ${record.outcome}, expected credited`,
        });
      }
      if (expected && !expected.credited && record.outcome === 'credited') {
        mismatches.push({ customer: event.customer, orderId: event.orderId, what: 'purchase credited, expected no credit' });
      }
    } else {
      const record: RefundRecord | undefined = await ledger.getRefund({
        source: event.source,
        orderId: event.orderId,
        refundId: event.refundId,
      });
      // A refund of an order whose customer is no member waits (then is parked) for the customer to be linked.
      const ledgerOrder = await ledger.getOrder({ source: event.source, orderId: event.orderId });
      const awaitsLink = ledgerOrder?.state === 'done' && ledgerOrder.outcome === 'customer_not_found';
      const final =
        record !== undefined &&
        record.outcome !== undefined &&
        (record.state === 'done' || (record.state === 'parked' && (event.orphan || awaitsLink)));
      if (!final) {
        unfinished.push({
          key: event.key,
          why: record
            ? `refund state ${record.state}${record.outcome ? ` (${record.outcome})` : ''}, ${record.lastError ?? 'no error'}`
            : 'no ledger record',
        });
        continue;
      }
      count(`refund ${record.outcome}`);
      const order = model.orders.get(event.orderId);
      const expected = event.orphan || awaitsLink ? 'refund_parked' : order?.credited ? 'debited' : 'skipped';
      if (record.outcome !== expected) {
        mismatches.push({
          customer: event.customer,
          orderId: event.orderId,
          what: `refund ${event.refundId} outcome ${record.outcome}, expected ${expected}`,
        });
      }
    }
  }
  return { unfinished, mismatches, outcomes };
}

/** What a reader needs to see why an order went wrong: its events, deliveries, history entries and ledger records. */
async function collectEvidence(scenario: Scenario, observed: ObservedCustomer[], ledger: Ledger, orderIds: string[]): Promise<string[]> {
  const lines: string[] = [];
  const orders = [...new Set(orderIds)];
  for (const orderId of orders.slice(0, 10)) {
    const events = scenario.events.filter((e) => e.orderId === orderId);
    const source = events[0]?.source ?? 'shopify';
    lines.push(`order ${orderId} (${source}):`);
    for (const e of events) {
      lines.push(
        e.kind === 'purchase'
          ? `  event purchase amount ${e.amount} customer ${e.customer ?? '-'}${e.test ? ' test' : ''}`
          : `  event refund ${e.refundId} amount ${e.amount}${e.cancel ? ' cancel' : ''}${e.orphan ? ' orphan' : ''}`,
      );
    }
    const positions = scenario.deliveries.flatMap((d, i) =>
      scenario.events[d.event]?.orderId === orderId ? [`${i}:${scenario.events[d.event]?.kind}/${d.kind}`] : [],
    );
    lines.push(`  deliveries ${positions.join(' ')}`);
    for (const customer of observed) {
      for (const entry of customer.history) {
        if (`${entry.remarks ?? ''}`.includes(orderId)) {
          lines.push(`  history customer ${customer.index}: ${entry.id} ${entry.point} ${entry.remarks ?? ''}`);
        }
      }
    }
    const order = await ledger.getOrder({ source, orderId });
    lines.push(`  ledger order ${JSON.stringify(order)}`);
    for (const e of events) {
      if (e.kind !== 'refund') continue;
      const refund = await ledger.getRefund({ source, orderId, refundId: e.refundId });
      if (refund) {
        const { event: _event, ...rest } = refund;
        lines.push(`  ledger refund ${JSON.stringify(rest)}`);
      }
    }
  }
  return lines;
}

/**
 * When the customer of a Shopify order was linked or enrolled during the run: only their Shopify orders
 * waited for it (a linked member's other cards were known from the start; an enrolment covers Shopify).
 */
function linkedAt(scenario: Scenario, times: () => Map<number, number> | undefined): LinkedAt {
  const customerOf = new Map(
    scenario.events.flatMap((e) => (e.source === 'shopify' && e.customer !== null ? [[e.orderId, e.customer]] : [])),
  );
  return ({ source, orderId }) => {
    const customer = source === 'shopify' ? customerOf.get(orderId) : undefined;
    return customer === undefined ? undefined : times()?.get(customer);
  };
}

/** The earliest of the times given, if any. */
function earliest(times: (number | undefined)[]): number | undefined {
  const defined = times.filter((t): t is number => t !== undefined);
  return defined.length > 0 ? Math.min(...defined) : undefined;
}

/** The verdict line's recovery figures, when the run had an outage. */
function recoveryOf(outage: Outage | undefined): Pick<ChaosResult, 'recovery'> {
  const report = outage?.report();
  return report ? { recovery: { backlog: report.backlogAtEnd, drainedSeconds: report.drainSeconds } } : {};
}
