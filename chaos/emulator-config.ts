import { CHAOS_RANKS, type Scenario } from './scenario.js';
import { smaregiCustomerCode } from './smaregi.js';
import { squareCustomerId } from './square.js';
import type { SenderSecrets } from './webhooks.js';

/** The run's Open API client, the senders' secrets and the emulator configuration built from a scenario. */

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
