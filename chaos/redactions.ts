import { request } from 'undici';
import { shopifyPrivacyRequest } from '../kit/webhooks/index.js';
import type { PrivacyRequests } from '../shared/privacy/index.js';
import type { Disturbance } from './disturbance.js';
import type { Random } from './prng.js';
import type { Scenario } from './scenario.js';

/**
 * Privacy requests mid-run: some members whose shop account is theirs from the start (not linked during
 * the run) are redacted by Shopify's customers/redact, signed as Shopify signs it, between their first
 * Shopify purchase and their last Shopify refund, naming their Shopify orders delivered so far. A redaction drops the shop
 * customer id and keeps the books (member, amounts, markers): their later refunds still debit, so the
 * run's comparison with the model (model.ts) stands unchanged, and every request must end recorded
 * (`privacy#…`, outcome `redacted`) once the queue has drained.
 */

/** Share of the candidates redacted; at least one when there is a candidate. */
const REDACT_SHARE = 0.3;

interface Redaction {
  customer: number;
  at: number;
  webhookId: string;
}

export interface RedactionReport {
  sent: number;
  /** Deliveries of the redacted customers' refunds after their redaction: each must still debit (the model says so). */
  refundsAfter: number;
  recorded: number;
  failures: string[];
}

export function createRedactions(deps: {
  scenario: Scenario;
  intakeUrl: string;
  shopifySecret: string;
  requests: PrivacyRequests;
  random: Random;
  log: (line: string) => void;
}): Disturbance & { report(): RedactionReport } {
  const { scenario } = deps;
  const redactions = plan(scenario, deps.random);
  const refundsAfter = redactions.reduce(
    (n, r) =>
      n +
      scenario.deliveries.slice(r.at).filter((d) => {
        const e = scenario.events[d.event];
        return e?.kind === 'refund' && e.customer === r.customer;
      }).length,
    0,
  );
  const report: RedactionReport = { sent: 0, refundsAfter, recorded: 0, failures: [] };

  async function redact(redaction: Redaction, position: number): Promise<void> {
    const customer = scenario.customers[redaction.customer];
    if (!customer) return;
    const orderIds = scenario.deliveries
      .slice(0, position)
      .map((d) => scenario.events[d.event])
      .flatMap((e) => (e?.kind === 'purchase' && e.source === 'shopify' && e.customer === redaction.customer ? [e.orderId] : []));
    const sent = shopifyPrivacyRequest(
      { topic: 'customers/redact', customerId: customer.shopifyId, orderIds: [...new Set(orderIds)] },
      deps.shopifySecret,
      redaction.webhookId,
      Date.now(),
    );
    // Intake queues it or says why not; like Shopify, try again on a refusal.
    for (let attempt = 1; attempt <= 3; attempt++) {
      const res = await request(`${deps.intakeUrl}${sent.path}`, { method: 'POST', headers: sent.headers, body: sent.body });
      await res.body.dump();
      if (res.statusCode === 202) {
        report.sent += 1;
        deps.log(`chaos: redacted customer ${redaction.customer} before delivery ${position}`);
        return;
      }
      if (attempt === 3) report.failures.push(`customer ${redaction.customer}: customers/redact answered ${res.statusCode}`);
    }
  }

  return {
    name: 'redactions',
    async beforeDelivery(position) {
      for (const redaction of redactions.filter((r) => r.at === position)) await redact(redaction, position);
    },
    tick: async () => undefined,
    jumpLimit: () => undefined,
    holdsClock: () => false,
    async afterDrain() {
      for (const redaction of redactions) {
        const record = await deps.requests.get(`shopify:privacy:redact_customer:${redaction.webhookId}`);
        if (record?.outcome === 'redacted') report.recorded += 1;
        else report.failures.push(`customer ${redaction.customer}: no redaction recorded after the drain`);
      }
    },
    reportLines: () => [
      `  redactions: ${report.sent} customers/redact sent mid-run, ${report.recorded} recorded as redacted; ${report.refundsAfter} deliveries of their refunds came after`,
      ...report.failures.map((f) => `    redaction failed: ${f}`),
    ],
    report: () => report,
  };
}

/**
 * Registered customers, not linked during the run, with a Shopify refund delivered after their first
 * Shopify purchase: each redacted at a position between the two, so at least that refund comes after.
 */
function plan(scenario: Scenario, random: Random): Redaction[] {
  const first = new Map<number, number>();
  const lastRefund = new Map<number, number>();
  scenario.deliveries.forEach((step, position) => {
    const event = scenario.events[step.event];
    if (event?.source !== 'shopify' || event.customer === null) return;
    if (event.kind === 'purchase' && !first.has(event.customer)) first.set(event.customer, position);
    if (event.kind === 'refund') lastRefund.set(event.customer, position);
  });
  const window = (index: number) => {
    const from = first.get(index);
    const to = lastRefund.get(index);
    return from !== undefined && to !== undefined && to > from ? { from: from + 1, to } : undefined;
  };
  const candidates = scenario.customers.filter((c) => c.registered && c.linkLater === undefined && window(c.index) !== undefined);
  const chosen = candidates.filter(() => random.chance(REDACT_SHARE));
  if (chosen.length === 0 && candidates.length > 0) chosen.push(random.pick(candidates));
  return chosen.map((c) => {
    const w = window(c.index) as { from: number; to: number };
    return { customer: c.index, at: random.int(w.from, w.to), webhookId: `chaos-redact-${c.index}` };
  });
}
