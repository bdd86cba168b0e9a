import { request } from 'undici';
import type { Disturbance } from './disturbance.js';
import type { FaultInjector } from './faults.js';
import type { LostDeliveries } from './lost-deliveries.js';
import type { UnfinishedEvent } from './report.js';
import type { DeliveryStep, EventSpec, Scenario } from './scenario.js';
import type { ChaosStack } from './stack.js';
import { waitUntil } from './wait.js';
import { renderDelivery, type SenderSecrets } from './webhooks.js';

/**
 * The senders' side of a run: every delivery of the scenario sent to intake, a few at a time, with the
 * faults and disturbances armed before each.
 */

export interface Deliveries {
  scenario: Scenario;
  stack: ChaosStack;
  injector: FaultInjector;
  /** Webhook requests in flight at once. */
  senders: number;
  /** Where refused deliveries are recorded. */
  unfinished: UnfinishedEvent[];
  log: (line: string) => void;
  disturbances: Disturbance[];
  holdsClock: () => boolean;
  lostDeliveries?: LostDeliveries | undefined;
  secrets: SenderSecrets;
}

/** Messages waiting or in processing above which the senders hold back. */
const MAX_BACKLOG = 60;
/** Deliveries between two pauses of the senders. */
const QUIET_EVERY = 50;

export async function deliverAll(run: Deliveries): Promise<void> {
  const { scenario, stack, injector } = run;
  const tokenExpiryAt = new Set([Math.floor(scenario.deliveries.length / 3), Math.floor((2 * scenario.deliveries.length) / 3)]);
  const inFlight = new Set<Promise<void>>();
  const refused = { count: 0 };
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
    if (quietOwed && !run.holdsClock()) {
      await Promise.all(inFlight);
      await waitUntil(() => stack.queue.stats().runningBatches === 0, 3_000);
      if (!run.holdsClock() && stack.expireLeases()) {
        injector.tally.leaseExpiries += 1;
        quietOwed = false;
      }
    }
    for (const d of run.disturbances) await d.beforeDelivery(position, scenario.deliveries.length);
    if (position === 0) await injector.armTokenFault();
    if (tokenExpiryAt.has(position)) await injector.expireTokens();
    await injector.maybeArm();
    const task = sendDelivery(run, step, refused).finally(() => inFlight.delete(task));
    inFlight.add(task);
    if (inFlight.size >= run.senders) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  run.log(`chaos: all deliveries sent (${refused.count} refused by intake)`);
}

/** Sends every copy of one delivery step; a copy intake refuses leaves its event unfinished. */
async function sendDelivery(run: Deliveries, step: DeliveryStep, refused: { count: number }): Promise<void> {
  const { scenario, stack, secrets } = run;
  if (await run.lostDeliveries?.intercept(scenario, step, stack, secrets)) return;
  const webhook = renderDelivery(scenario, step, secrets, Date.now());
  await webhook.prepare?.();
  const copies = Array.from({ length: step.copies }, () => sendWithRetries(stack.intakeUrl, webhook));
  for (const result of await Promise.all(copies)) {
    if (result !== 'accepted') {
      refused.count += 1;
      const event = scenario.events[step.event] as EventSpec;
      run.unfinished.push({ key: event.key, why: `intake refused delivery ${step.deliveryId}: ${result}` });
    }
  }
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
