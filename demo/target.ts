import type { EmulatorConfig } from '../stand-ins/openapi/index.js';
import type { LocalStackHandle } from '../kit/local-stack/connect.js';
import type { SquareSigning } from '../kit/webhooks/index.js';

/** What the demo drives: a running local stack, in this process or another one. */
export type DemoTarget = Pick<
  LocalStackHandle,
  'intakeUrl' | 'emulatorUrl' | 'openapi' | 'ledger' | 'queueStats' | 'waitForIdle' | 'squareOrders'
> & {
  emulatorConfig: EmulatorConfig;
  /** The stack has the `shopify-later` source (earns at fulfilment, with the demo's 2× campaign): demo/provisional.ts. */
  laterSource?: boolean;
  /** The stack's redemption validity (its Shopify source's settings), when it redeems. */
  redemptionValidSeconds?: number | undefined;
  /** The current signing secret of each source. */
  secrets: { shopify: string; pos: string; square?: SquareSigning; smaregi?: SmaregiDemoAccess };
};

/** How the demo reaches the Smaregi stand-in and signs its thin webhooks. */
export interface SmaregiDemoAccess {
  /** The stand-in's URL (seeding routes under /__smaregi). */
  url: string;
  contractId: string;
  header: string;
  secret: string;
  /** The stack's Smaregi `tillPoints`: the till sale paid partly in points runs only under `membership`. */
  tillPoints?: 'ignore' | 'membership' | undefined;
}
