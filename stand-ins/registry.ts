import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
// gen:senders imports: written by `npm run gen:senders` from SENDER_KINDS (senders.ts); do not edit
import { localStandIn as shopifyAdmin } from './shopify-admin/local.js';
import { localStandIn as smaregi } from './smaregi/local.js';
import { localStandIn as squareOrders } from './square-orders/local.js';
// gen:senders end
import type { AnyLocalStandIn, LocalStandIn } from './plug-in.js';

/**
 * The senders' stand-ins as the local stack runs them, keyed by their folder's name in camelCase, in
 * SENDER_KINDS' order: every stand-ins/<name>/local.ts of a sender's ops `standIn` (written by `npm run
 * gen:senders`). The stack starts, wires and describes them by iterating this registry.
 */
export const LOCAL_STAND_INS = {
  // gen:senders table: written by `npm run gen:senders` from SENDER_KINDS (senders.ts); do not edit
  shopifyAdmin,
  squareOrders,
  smaregi,
  // gen:senders end
} as const satisfies Readonly<Record<string, AnyLocalStandIn>>;

type Registry = typeof LOCAL_STAND_INS;

/** A stand-in's key: its folder's name in camelCase (`shopifyAdmin`, `squareOrders`, `smaregi`). */
export type StandInKey = keyof Registry;

export const STAND_IN_KEYS = Object.keys(LOCAL_STAND_INS) as StandInKey[];

type OptionsOf<K extends StandInKey> = Registry[K] extends LocalStandIn<infer O, infer _S, infer _I> ? O : never;

/** Each started stand-in, by key (`stack.standIns.smaregi`). */
export type StartedStandIns = { readonly [K in StandInKey]: Awaited<ReturnType<Registry[K]['start']>> };

/** Each stand-in's entry of GET /__local/info, by key. */
export type StandInInfo = { [K in StandInKey]: ReturnType<Registry[K]['info']> };

/** The stack's options of the stand-ins that take any (`smaregi`), by key. */
export type StandInOptions = { [K in StandInKey as undefined extends OptionsOf<K> ? never : K]?: OptionsOf<K> };

/** Each stand-in's port (0 or unset: a free one), by key. */
export type StandInPorts = { [K in StandInKey]?: number };

const plugIn = (key: StandInKey): AnyLocalStandIn => LOCAL_STAND_INS[key];

/** Starts every stand-in in the registry's order; `started` hears of each as it listens (the stack closes it). */
export async function startStandIns(
  ports: StandInPorts | undefined,
  options: StandInOptions,
  started: (close: () => Promise<void>) => void,
): Promise<StartedStandIns> {
  const all: Record<string, unknown> = {};
  for (const key of STAND_IN_KEYS) {
    const one = await plugIn(key).start(ports?.[key] ?? 0, (options as Record<string, unknown>)[key]);
    started(() => one.close());
    all[key] = one;
  }
  return all as StartedStandIns;
}

/** The handlers' environment entries of every stand-in, each given `env` with the entries before it applied. */
export function standInEnvironment(standIns: StartedStandIns, env: NodeJS.ProcessEnv, sourcesKey: string): NodeJS.ProcessEnv {
  const entries: NodeJS.ProcessEnv = {};
  for (const key of STAND_IN_KEYS) Object.assign(entries, plugIn(key).environment(standIns[key], { ...env, ...entries }, sourcesKey));
  return entries;
}

/** Every stand-in's entry of GET /__local/info, from the handlers' environment. */
export function standInInfo(standIns: StartedStandIns, env: NodeJS.ProcessEnv, sourcesKey: string): StandInInfo {
  return Object.fromEntries(STAND_IN_KEYS.map((key) => [key, plugIn(key).info(standIns[key], env, sourcesKey)])) as StandInInfo;
}

/** Every stand-in's URL, by key. */
export function standInUrls(standIns: StartedStandIns): Record<StandInKey, string> {
  return Object.fromEntries(STAND_IN_KEYS.map((key) => [key, standIns[key].url])) as Record<StandInKey, string>;
}

/** The banner's lines of every stand-in, in the registry's order. */
export function standInBanner(standIns: StartedStandIns): { services: string[]; secrets: string[] } {
  const lines = STAND_IN_KEYS.map((key) => plugIn(key).banner(standIns[key]));
  return { services: lines.flatMap((l) => l.services), secrets: lines.flatMap((l) => l.secrets) };
}

/** Tells every stand-in that listens for them of a request the intake answered; one that fails is reported, never thrown. */
export function standInsDelivered(
  standIns: StartedStandIns,
  event: APIGatewayProxyEventV2,
  result: APIGatewayProxyResultV2<unknown>,
  log: (line: string) => void,
): void {
  for (const key of STAND_IN_KEYS) {
    const one = plugIn(key);
    try {
      one.delivered?.(standIns[key], event, result);
    } catch (e) {
      log(`[${one.name}] could not store an accepted delivery: ${e instanceof Error ? e.message : 'invalid'}`);
    }
  }
}
