import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { SenderKind } from '../shared/sources/ops.entry.js';

/**
 * A sender's stand-in as the local stack (`npm start`, the tests, the chaos runs) runs it: each
 * stand-ins/<name>/local.ts exports one as `localStandIn`, and `npm run gen:senders` lists it in
 * stand-ins/registry.ts under its folder's name in camelCase (`shopify-admin` → `shopifyAdmin`):
 * the key of its port (`ports.<key>`, `<KEY>_PORT`), its URL (`urls.<key>`), its started parts
 * (`standIns.<key>`), its options (`<key>` of the stack's options) and its entry of GET /__local/info.
 */
export interface LocalStandIn<Options, Started extends RunningStandIn, Info> {
  /** The sender kind whose service it stands in for. */
  readonly kind: SenderKind;
  /** Its folder's name under stand-ins/ (its log lines' prefix). */
  readonly name: string;
  /** The variable that sets its port under `npm start` (`<NAME>_PORT`; 0: a free one) and the port otherwise. */
  readonly port: { readonly variable: string; readonly default: number };
  /** Listens on `port` (0: a free one), with the stack's options for it. */
  start(port: number, options: Options | undefined): Promise<Started>;
  /**
   * The handlers' environment entries that point the sender at it (its API access, its webhook secret),
   * given the environment so far: what the caller set wins. It may give `sourcesKey` (SOURCES_CONFIG)
   * with its source enabled.
   */
  environment(started: Started, env: NodeJS.ProcessEnv, sourcesKey: string): NodeJS.ProcessEnv;
  /** Its entry of GET /__local/info and of the in-process handle, from the handlers' final environment. */
  info(started: Started, env: NodeJS.ProcessEnv, sourcesKey: string): Info;
  /** Its lines of `npm start`'s banner: `services` after the stack's parts, `secrets` after the webhook secrets. */
  banner(started: Started): { readonly services: readonly string[]; readonly secrets: readonly string[] };
  /** Called with every request the intake answered (the Shopify Admin stand-in keeps the shop's orders in step). */
  delivered?(started: Started, event: APIGatewayProxyEventV2, result: APIGatewayProxyResultV2<unknown>): void;
}

/** What every started stand-in has. */
export interface RunningStandIn {
  readonly url: string;
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: the registry keeps each stand-in's own types
export type AnyLocalStandIn = LocalStandIn<any, any, unknown>;
