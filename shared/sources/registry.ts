// gen:senders imports: written by `npm run gen:senders` from SENDER_KINDS (senders.ts); do not edit
import { posSource } from './pos/webhook.js';
import { shopifySource } from './shopify/webhook.js';
import { smaregiSource } from './smaregi/webhook.js';
import { squareSource } from './square/webhook.js';
// gen:senders end
import type { SenderKind } from './senders.js';
import type { PointsEvent, QueuedEvent } from '../events/index.js';
import type { ConfiguredSource, Outcome, SignedRequest, SourceError, ThinPart, WebhookSource } from './types.js';
import { ok, rejected } from './types.js';
import { schemaError } from './payload.js';
import { readSourcesConfig, SETTINGS_KINDS } from './source-settings.js';

/**
 * Every kind of webhook source there is, keyed by its kind, in SENDER_KINDS' order (senders.ts: a new
 * sender's one registration line; `npm run gen:senders` writes the lines below; shared/sources/README.md
 * has the checklist). The intake's table: the other bundles read their own (SETTINGS_KINDS, SENDER_OPS,
 * SENDER_RESOLUTIONS), so that none carries another's parsers, clients or ops text.
 */
export const KINDS = {
  // gen:senders table: written by `npm run gen:senders` from SENDER_KINDS (senders.ts); do not edit
  shopify: shopifySource,
  pos: posSource,
  square: squareSource,
  smaregi: smaregiSource,
  // gen:senders end
  // biome-ignore lint/suspicious/noExplicitAny: each entry keeps its own Settings/Payload types; configureSource re-binds them safely
} as const satisfies Readonly<Record<SenderKind, WebhookSource<any, any, QueuedEvent>>>;

export type { SenderKind };

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
