import { request } from 'undici';
import { linkThroughAppProxy as twoStepLink, shopifyCustomerCreated, type WebhookRequest } from '../kit/webhooks/index.js';
import type { Ledger } from '../shared/ledger/index.js';
import type { Disturbance } from './disturbance.js';
import type { EmulatorAdmin, FaultKind, upstreamReader } from './emulator-admin.js';
import { FAULT_KINDS, type FaultTally } from './faults.js';
import type { Random } from './prng.js';
import type { LinkStep, Scenario } from './scenario.js';

/**
 * Links mid-run (the scenario's `links`, links-scenario.ts): before the delivery at a link's position,
 * a member's shop account is linked through the App Proxy route of the local stack (a handover token
 * from the emulator's admin route, the request signed as Shopify signs it), or an unknown shop customer
 * is enrolled by customers/create (delivered twice at once, then again with a new webhook id). Faults
 * fly on the Open API calls linking and enrolment make: the handover check, the member update, the
 * register, the lookups. The member does what a member does when the page says "try again": asks the
 * membership app for a new link (a new token) and presses it again. The model (model.ts) expects every
 * Shopify order of such a customer credited exactly once, before the link or after.
 */

/** Routes of linking and enrolment, as the emulator's fault selectors. */
export const LINK_ROUTES = [
  { name: 'handover check', method: 'GET', path: '^/api/ext/check/[^/]+$' },
  { name: 'member update', method: 'PUT', path: '^/api/ext/users/[^/]+$' },
  { name: 'member by external id', method: 'GET', path: '^/api/ext/users/external_id/[^/]+/[^/]+$' },
  { name: 'member', method: 'GET', path: '^/api/ext/users/[0-9A-Za-z-]+$' },
] as const;
export const REGISTER_ROUTE = { name: 'register', method: 'POST', path: '^/api/ext/users$' } as const;

/** Chance of a fault armed before each link attempt or enrolment; attempts before giving up. */
const LINK_FAULT_RATE = 0.6;
const MAX_ATTEMPTS = 8;
/** Answers after which the member asks for a new link and tries again (the page says so). */
const TRY_AGAIN = new Set([500, 503, 410, 400]);
/** A member whose link the service's outage refused comes back later (simulated): after 1, 2, 4, then every 5 minutes. */
const OUTAGE_RETRY_FIRST_MS = 60_000;
const OUTAGE_RETRY_MAX_MS = 300_000;

export interface LinkReport {
  linked: number;
  enrolled: number;
  attempts: number;
  retried: number;
  repeated: number;
  /** Links refused by an outage (503) and tried again later. */
  putOff: number;
  /** Shopify orders of the linked customers that had ended customer_not_found when the link came. */
  earlierNotFound: number;
  faults: number;
  failures: string[];
  /** Per customer (index), when the link or enrolment that succeeded was asked for (simulated ms). */
  linkedAt: Map<number, number>;
}

export interface LinkDeps {
  scenario: Scenario;
  intakeUrl: string;
  ledger: Pick<Ledger, 'getOrder'>;
  admin: EmulatorAdmin;
  reader: ReturnType<typeof upstreamReader>;
  clientId: string;
  shopifySecret: string;
  tally: FaultTally;
  random: Random;
  /** The run's simulated clock (ms). */
  clock: () => number;
  log: (line: string) => void;
}

/** One run's linking: what it needs, what it reports, and its state between deliveries. */
interface Linking {
  deps: LinkDeps;
  report: LinkReport;
  /** Member ids, read once before the first delivery (the reader's token does not outlive the run's token expiries). */
  memberIds: Map<number, string | undefined>;
  /** Links refused while the Open API was down (503): tried again later, backing off, before the drain. */
  pending: LinkStep[];
  retry: { running: boolean; delayMs: number; nextAt: number };
}

export function createLinks(deps: LinkDeps): Disturbance & { report(): LinkReport } {
  const run: Linking = {
    deps,
    report: {
      linked: 0,
      enrolled: 0,
      attempts: 0,
      retried: 0,
      repeated: 0,
      putOff: 0,
      earlierNotFound: 0,
      faults: 0,
      failures: [],
      linkedAt: new Map(),
    },
    memberIds: new Map(),
    pending: [],
    retry: { running: false, delayMs: OUTAGE_RETRY_FIRST_MS, nextAt: 0 },
  };
  const { report, pending } = run;
  const links = deps.scenario.links ?? [];
  return {
    name: 'links',
    async beforeDelivery(position) {
      if (position === 0) {
        for (const link of links.filter((l) => l.via === 'app_proxy')) {
          const customer = deps.scenario.customers[link.customer];
          run.memberIds.set(link.customer, customer && (await deps.reader.memberByExternalId('pos_card', customer.posCard))?.id);
        }
      }
      for (const link of links.filter((l) => l.at === position)) {
        report.earlierNotFound += await earlierNotFound(deps, link);
        await (link.via === 'app_proxy' ? linkThroughAppProxy(run, link) : enrol(run, link));
        deps.log(`chaos: ${link.via === 'app_proxy' ? 'linked' : 'enrolled'} customer ${link.customer} before delivery ${position}`);
      }
    },
    tick: () => retryPending(run),
    jumpLimit: () => undefined,
    nextDueAt: () => (pending.length > 0 ? run.retry.nextAt : undefined),
    // The drain waits for the links the outage put off (their earlier orders are credited after them).
    holdsClock: () => pending.length > 0,
    afterDrain: async () => {
      for (const link of pending.splice(0)) report.failures.push(`customer ${link.customer}: the App Proxy link never got through (503)`);
    },
    reportLines: () => [
      `  links: ${report.linked} members linked through the App Proxy (${report.attempts} requests, ${report.retried} tried again with a new token, ${report.repeated} repeated links unchanged, ${report.putOff} put off by an outage), ${report.enrolled} shop customers enrolled by customers/create; ${report.earlierNotFound} of their earlier Shopify orders had ended customer_not_found; ${report.faults} faults on linking and enrolment`,
      ...report.failures.map((f) => `    link failed: ${f}`),
    ],
    report: () => report,
  };
}

function linked(report: LinkReport, customer: number, askedAt: number): void {
  if (!report.linkedAt.has(customer)) report.linkedAt.set(customer, askedAt);
}

async function maybeArm({ deps, report }: Linking, routes: readonly { name: string; method: string; path: string }[]): Promise<void> {
  if (!deps.random.chance(LINK_FAULT_RATE)) return;
  const route = deps.random.pick(routes);
  const fault: FaultKind = deps.random.pick(FAULT_KINDS);
  await deps.admin.addFault({
    method: route.method,
    path: route.path,
    fault,
    times: 1,
    ...(fault === 'delay' ? { delay_ms: 1250 } : {}),
  });
  deps.tally.emulator += 1;
  deps.tally.byKind[fault] += 1;
  deps.tally.byRoute[route.name] = (deps.tally.byRoute[route.name] ?? 0) + 1;
  report.faults += 1;
}

/** Waits (a little) for the customer's Shopify orders delivered so far to end, and counts those without a member. */
async function earlierNotFound(deps: LinkDeps, link: LinkStep): Promise<number> {
  const delivered = new Set(deps.scenario.deliveries.slice(0, link.at).map((d) => d.event));
  const orders = deps.scenario.events.filter(
    (e, i) => delivered.has(i) && e.kind === 'purchase' && e.source === 'shopify' && e.customer === link.customer && !e.test,
  );
  // Wall time, not the run's clock: a loaded machine needs longer to finish what is already due.
  const deadline = Date.now() + 3_000;
  for (;;) {
    const records = await Promise.all(orders.map((o) => deps.ledger.getOrder({ source: 'shopify', orderId: o.orderId })));
    if (records.every((r) => r?.state === 'done') || Date.now() > deadline) {
      return records.filter((r) => r?.outcome === 'customer_not_found').length;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function linkOnce(
  { deps, report }: Linking,
  shopifyId: string,
  memberId: string,
): Promise<{ status: number; changed?: boolean; kind?: string }> {
  const token = await deps.admin.handoverToken(deps.clientId, memberId);
  report.attempts += 1;
  try {
    // Both steps, as the customer's browser: the confirmation (GET), then the confirmed link (POST).
    const input = { customerId: shopifyId, member: memberId, token, secret: deps.shopifySecret, nowMs: Date.now() };
    const res = await twoStepLink(deps.intakeUrl, input);
    const body = JSON.parse(res.body) as { changed?: boolean; error?: { kind?: string } };
    return { status: res.status, ...(body.changed === undefined ? {} : { changed: body.changed }), kind: body.error?.kind ?? '' };
  } catch (e) {
    return { status: 0, kind: (e as Error).message };
  }
}

function putOff({ deps, report, pending, retry }: Linking, link: LinkStep): void {
  if (pending.length === 0) {
    retry.delayMs = OUTAGE_RETRY_FIRST_MS;
    retry.nextAt = deps.clock() + retry.delayMs;
  }
  report.putOff += 1;
  pending.push(link);
}

async function retryPending(run: Linking): Promise<void> {
  const { deps, report, pending, retry } = run;
  if (retry.running || pending.length === 0 || deps.clock() < retry.nextAt) return;
  retry.running = true;
  try {
    for (const link of [...pending]) {
      const customer = deps.scenario.customers[link.customer];
      const memberId = run.memberIds.get(link.customer);
      if (!customer || !memberId) continue;
      const askedAt = deps.clock();
      const answer = await linkOnce(run, customer.shopifyId, memberId);
      if (answer.status === 503 || answer.status === 0) continue;
      pending.splice(pending.indexOf(link), 1);
      if (answer.status === 200) {
        report.linked += 1;
        linked(report, link.customer, askedAt);
      } else
        report.failures.push(
          `customer ${link.customer}: the App Proxy link answered ${answer.status} ${answer.kind ?? ''} after the outage`,
        );
    }
    retry.delayMs = Math.min(retry.delayMs * 2, OUTAGE_RETRY_MAX_MS);
    retry.nextAt = deps.clock() + retry.delayMs;
  } finally {
    retry.running = false;
  }
}

async function linkThroughAppProxy(run: Linking, link: LinkStep): Promise<void> {
  const { deps, report } = run;
  const customer = deps.scenario.customers[link.customer];
  if (!customer) return;
  const memberId = run.memberIds.get(link.customer);
  if (!memberId) {
    report.failures.push(`customer ${link.customer}: no member holds their POS card, nobody to link`);
    return;
  }
  let last = '';
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    await maybeArm(run, LINK_ROUTES);
    const askedAt = deps.clock();
    const answer = await linkOnce(run, customer.shopifyId, memberId);
    if (answer.status === 200) {
      report.linked += 1;
      linked(report, link.customer, askedAt);
      // Sometimes the member presses the link again: answered linked, nothing changes.
      if (deps.random.chance(0.3)) {
        const again = await linkOnce(run, customer.shopifyId, memberId);
        if (again.status === 200 && again.changed === false) report.repeated += 1;
        else report.failures.push(`customer ${link.customer}: the repeated link answered ${again.status} ${again.kind ?? ''}`);
      }
      return;
    }
    last = `${answer.status} ${answer.kind ?? ''}`;
    if (answer.status !== 0 && !TRY_AGAIN.has(answer.status)) break;
    report.retried += 1;
  }
  // The service is down (an outage): the member tries again later, once it answers.
  if (last.startsWith('503 ') || last.startsWith('0 ')) {
    putOff(run, link);
    return;
  }
  report.failures.push(`customer ${link.customer}: the App Proxy link did not succeed (last answer ${last})`);
}

async function enrol(run: Linking, link: LinkStep): Promise<void> {
  const { deps, report } = run;
  const customer = deps.scenario.customers[link.customer];
  if (!customer) return;
  await maybeArm(run, [REGISTER_ROUTE, LINK_ROUTES[2]]);
  const created = (webhookId: string) => shopifyCustomerCreated(customer.shopifyId, deps.shopifySecret, webhookId, Date.now());
  const first = created(`create-${customer.index}`);
  const askedAt = deps.clock();
  const results = await Promise.all([send(deps, first), send(deps, first), send(deps, created(`create-${customer.index}-again`))]);
  const refused = results.filter((r) => r !== 202);
  if (refused.length > 0) report.failures.push(`customer ${link.customer}: customers/create refused (${refused.join(', ')})`);
  else {
    report.enrolled += 1;
    linked(report, link.customer, askedAt);
  }
}

async function send(deps: LinkDeps, webhook: WebhookRequest): Promise<number> {
  let status = 0;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      const res = await request(`${deps.intakeUrl}${webhook.path}`, { method: 'POST', headers: webhook.headers, body: webhook.body });
      await res.body.text();
      status = res.statusCode;
      if (status < 500) return status;
    } catch {
      status = 0;
    }
  }
  return status;
}
