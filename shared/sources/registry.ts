import { posSource } from './pos/webhook.js';
import { shopifySource } from './shopify/webhook.js';
import { smaregiSource } from './smaregi/webhook.js';
import { squareSource } from './square/webhook.js';
import type { PointsEvent, QueuedEvent } from '../events/index.js';
import type { ConfiguredSource, Outcome, SignedRequest, SourceError, ThinPart, WebhookSource } from './types.js';
import { ok, rejected } from './types.js';
import { schemaError } from './payload.js';
import { readSourcesConfig, SETTINGS_KINDS } from './source-settings.js';

/**
 * Every kind of webhook source there is, keyed by its kind. A new sender: its folder, one line here (the
 * compiler then asks for its ops needs in ops.entry.ts; shared/sources/README.md has the checklist) and
 * one in SETTINGS_KINDS (source-settings.ts: its settings side, same order; both must name the same kinds).
 */
export const KINDS = {
  shopify: shopifySource,
  pos: posSource,
  square: squareSource,
  smaregi: smaregiSource,
  // biome-ignore lint/suspicious/noExplicitAny: each entry keeps its own Settings/Payload types; configureSource re-binds them safely
} as const satisfies Readonly<Record<keyof typeof SETTINGS_KINDS, WebhookSource<any, any, QueuedEvent>>>;

/** A registered sender kind. */
export type SenderKind = keyof typeof KINDS;

// biome-ignore lint/suspicious/noExplicitAny: as KINDS
const byKind: Readonly<Record<string, WebhookSource<any, any, QueuedEvent>>> = KINDS;

export type SourceSet = ReadonlyMap<string, ConfiguredSource>;

/** Binds a source to its settings: what the intake calls. */
export function configureSource<S, P, E extends QueuedEvent = PointsEvent>(
  source: WebhookSource<S, P, E>,
  name: string,
  settings: S,
): ConfiguredSource<E> {
  const { subscriptions, versionMismatch, customerLinking } = source;
  return {
    name,
    kind: source.kind,
    quarantinesUnreadable: source.quarantinesUnreadable === true,
    ...(source.maxBodyBytes !== undefined ? { maxBodyBytes: source.maxBodyBytes } : {}),
    ...(subscriptions ? { subscriptions: () => subscriptions.call(source, settings) } : {}),
    ...(versionMismatch ? { versionMismatch: (headers) => versionMismatch.call(source, headers, settings) } : {}),
    ...(customerLinking ? { customerLinking: () => customerLinking.call(source, settings) } : {}),
    verify: (request, options) => source.verify(request, options, settings),
    read: (request) => {
      const parsed = source.parse(request, settings);
      if (parsed.status !== 'ok') return parsed;
      const one = source.normalise(parsed.value, { source: name, settings });
      const problem = one.status === 'ok' ? partProblem(source.thinPart, [one.value]) : undefined;
      return problem ? rejected(problem) : one;
    },
    readMany: (request: SignedRequest) => {
      const parsed = source.parse(request, settings);
      if (parsed.status !== 'ok') return parsed;
      const context = { source: name, settings };
      const all: Outcome<E[]> = source.normaliseMany
        ? source.normaliseMany(parsed.value, context)
        : ((one) => (one.status === 'ok' ? ok([one.value]) : one))(source.normalise(parsed.value, context));
      const problem = all.status === 'ok' ? partProblem(source.thinPart, all.value) : undefined;
      return problem ? rejected(problem) : all;
    },
  };
}

/** The sender's own part of its events, checked against its schema: nothing off-contract enters the queue. */
function partProblem(part: ThinPart | undefined, events: readonly QueuedEvent[]): SourceError | undefined {
  if (!part) return undefined;
  for (const event of events) {
    const value = (event as Record<string, unknown>)[part.key];
    if (value === undefined) continue;
    const checked = part.schema.safeParse(value);
    if (!checked.success) return schemaError(checked.error, `event.${part.key}`);
  }
  return undefined;
}

/**
 * The enabled sources from SOURCES_CONFIG (JSON text, or undefined/empty for all defaults).
 * Shape: `{ "<name>": false | { "kind"?: "shopify" | "pos", ...settings } }`; the name is the URL
 * segment (`/webhooks/<name>`) and the kind defaults to it. `shopify` and `pos` are enabled with
 * defaults unless configured or set to `false`. Throws a ConfigurationError (invalid_sources_config) naming the bad field.
 * Functions that only read settings use loadSourceSettings (source-settings.ts): same rules, no parsers.
 */
export function loadSources(configJson: string | undefined): SourceSet {
  const sources = new Map<string, ConfiguredSource>();
  for (const { name, kind, settings } of readSourcesConfig(configJson, byKind)) sources.set(name, configureSource(kind, name, settings));
  return sources;
}

/**
 * The enabled sources of one kind only (`source`'s), bound to it: the whole SOURCES_CONFIG is checked as by
 * loadSources (same errors), through the settings side of every kind, so a function that reads one
 * sender's webhooks (reconcile-shopify) bundles no other sender's parser.
 */
export function loadSourcesOfKind<S, P, E extends QueuedEvent>(
  configJson: string | undefined,
  source: WebhookSource<S, P, E>,
): ReadonlyMap<string, ConfiguredSource<E>> {
  const sources = new Map<string, ConfiguredSource<E>>();
  for (const { name, kind, settings } of readSourcesConfig(configJson, SETTINGS_KINDS)) {
    if (kind.kind === source.kind) sources.set(name, configureSource(source, name, settings as S));
  }
  return sources;
}

/** The settings a kind of source gets when nothing is configured (documentation, tests, local stack). */
export function defaultSettings(kind: string): unknown {
  const source = byKind[kind];
  return source ? source.settingsSchema.parse({}) : undefined;
}
