import { loadSources } from '../shared/sources/index.js';
import { LOCAL_DEFAULTS } from '../kit/local-stack/config.js';
import { reconcileShopify, type ReconcileResult } from '../shared/reconcile/index.js';
import { createShopifyAdminClient } from '../shared/sources/shopify/index.js';
import { createRandom } from './prng.js';
import type { DeliveryStep, EventSpec, PurchaseSpec, Scenario } from './scenario.js';
import type { ChaosStack } from './stack.js';
import { renderDelivery, SHOP_DOMAIN, type SenderSecrets } from './webhooks.js';

/**
 * The "lost deliveries" fault: some Shopify orders/paid and refunds/create webhooks are never sent
 * (every delivery of the event: Shopify gave up, or the subscription was gone). Shopify still holds
 * the order or refund: its body goes into the Admin API stand-in instead. Only reconciliation can
 * repair that; with `repair`, `npm run reconcile`'s core runs once every delivery is done (while the
 * other faults still fire) and queues what the ledger never saw on the stack's own queue.
 *
 * Events chosen: Shopify purchases that are not test orders and whose order is never cancelled (a
 * cancelled order's paid webhook, lost, is rightly never credited by reconcile), and Shopify refunds
 * of orders that have a purchase (not cancellations, not orphans).
 */

export interface LostDeliveriesOptions {
  /** Share of eligible events whose every delivery is lost. */
  rate: number;
  seed: number;
  /** Run reconciliation after the deliveries (false: show that nothing else repairs the loss). */
  repair: boolean;
}

export interface LostDeliveriesTally {
  lostEvents: number;
  /** Lost events the stand-in refused to hold (their order never reached Shopify's side either). */
  notHeld: number;
  reconcile: ReconcileResult | undefined;
}

export interface LostDeliveries {
  readonly tally: LostDeliveriesTally;
  /** true: this delivery is lost (not to be sent); its event is put into the shop instead. */
  intercept(scenario: Scenario, step: DeliveryStep, stack: ChaosStack, secrets: SenderSecrets): Promise<boolean>;
  /** After every delivery: reconcile with the shop (when repairing). */
  afterDeliveries(stack: ChaosStack, log: (line: string) => void): Promise<void>;
}

function eligible(scenario: Scenario, event: EventSpec): boolean {
  if (event.source !== 'shopify') return false;
  const cancelled = scenario.events.some((e) => e.kind === 'refund' && e.orderId === event.orderId && e.cancel);
  if (event.kind === 'purchase') return !event.test && !cancelled;
  return (
    !event.cancel && !event.orphan && scenario.events.some((e): e is PurchaseSpec => e.kind === 'purchase' && e.orderId === event.orderId)
  );
}

export function createLostDeliveries(options: LostDeliveriesOptions): LostDeliveries {
  const tally: LostDeliveriesTally = { lostEvents: 0, notHeld: 0, reconcile: undefined };
  let lost: Set<number> | undefined;
  const put = new Set<number>();
  const heldRefunds: string[] = [];
  let adminUrl: string | undefined;

  const store = async (path: string, body: string) => {
    const res = await fetch(`${adminUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await res.body?.cancel();
    if (res.status !== 201) tally.notHeld += 1;
  };

  return {
    tally,
    async intercept(scenario, step, stack, secrets) {
      if (lost === undefined) {
        const random = createRandom(options.seed).fork('lost deliveries');
        lost = new Set(scenario.events.flatMap((e, i) => (eligible(scenario, e) && random.chance(options.rate) ? [i] : [])));
        tally.lostEvents = lost.size;
      }
      if (!lost.has(step.event)) return false;
      if (put.has(step.event)) return true;
      put.add(step.event);
      adminUrl ??= stack.shopifyAdminUrl;
      if (adminUrl === undefined) throw new Error("chaos: lost deliveries need the stack's Shopify Admin API stand-in");
      const { body, headers } = renderDelivery(scenario, step, secrets, Date.now());
      // A refund waits until every order is in the shop: Shopify never holds a refund without its order.
      if (headers['x-shopify-topic'] === 'refunds/create') heldRefunds.push(body);
      else await store('/__shopify/orders', body);
      return true;
    },
    async afterDeliveries(stack, log) {
      if (adminUrl === undefined) return;
      for (const body of heldRefunds.splice(0)) await store('/__shopify/refunds', body);
      log(`chaos: ${tally.lostEvents} events lost as webhooks (${tally.notHeld} not held by the shop)`);
      if (!options.repair) return;
      const source = loadSources(undefined).get('shopify');
      if (!source) throw new Error('chaos: no Shopify source registered, nothing to reconcile');
      const client = createShopifyAdminClient({
        shopDomain: SHOP_DOMAIN,
        origin: adminUrl,
        accessToken: async () => LOCAL_DEFAULTS.shopifyAdminToken,
      });
      try {
        const until = new Date(Date.now() + 60_000);
        tally.reconcile = await reconcileShopify(
          {
            client,
            ledger: stack.ledger,
            source,
            shopDomain: SHOP_DOMAIN,
            queue: stack.queue,
            now: () => new Date(),
            onProblem: (p) => log(`chaos: reconcile could not reconcile ${p.eventId}: ${p.message}`),
          },
          { since: new Date(until.getTime() - 3_600_000), until, dryRun: false },
        );
        log(`chaos: reconcile: scanned=${tally.reconcile.scanned} missing=${tally.reconcile.missing} enqueued=${tally.reconcile.enqueued}`);
      } finally {
        await client.close();
      }
    },
  };
}
