import * as z from 'zod';
import { posSource } from './pos.js';
import { shopifySource } from './shopify.js';
import { smaregiSource } from './smaregi.js';
import { squareSource } from './square.js';
import type { PointsEvent, QueuedEvent } from '../events/index.js';
import type { ConfiguredSource, SignedRequest, WebhookSource } from './types.js';
import { sourcesConfigError } from './errors.js';
import { parseJsonOrUndefined } from '../text/index.js';
import { lazySchema } from '../schema/index.js';

/** Every kind of webhook source there is. A new sender: one module, one line here. */
// biome-ignore lint/suspicious/noExplicitAny: each entry keeps its own Settings/Payload types; configureSource re-binds them safely
const KINDS: Readonly<Record<string, WebhookSource<any, any, QueuedEvent>>> = {
  [shopifySource.kind]: shopifySource,
  [posSource.kind]: posSource,
  [squareSource.kind]: squareSource,
  [smaregiSource.kind]: smaregiSource,
};

/** Sources enabled when SOURCES_CONFIG does not mention them (each with its defaults). */
const BUILT_IN = ['shopify', 'pos'] as const;

export type SourceSet = ReadonlyMap<string, ConfiguredSource>;

const SourceName = lazySchema(() => z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/));

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
      return source.normalise(parsed.value, { source: name, settings });
    },
    readMany: (request: SignedRequest) => {
      const parsed = source.parse(request, settings);
      if (parsed.status !== 'ok') return parsed;
      const context = { source: name, settings };
      if (source.normaliseMany) return source.normaliseMany(parsed.value, context);
      const one = source.normalise(parsed.value, context);
      return one.status === 'ok' ? { status: 'ok', value: [one.value] } : one;
    },
  };
}

/**
 * The enabled sources from SOURCES_CONFIG (JSON text, or undefined/empty for all defaults).
 * Shape: `{ "<name>": false | { "kind"?: "shopify" | "pos", ...settings } }`; the name is the URL
 * segment (`/webhooks/<name>`) and the kind defaults to it. `shopify` and `pos` are enabled with
 * defaults unless configured or set to `false`. Throws a ConfigurationError (invalid_sources_config) naming the bad field.
 */
export function loadSources(configJson: string | undefined): SourceSet {
  let config: unknown = {};
  if (configJson !== undefined && configJson.trim() !== '') {
    config = parseJsonOrUndefined(configJson);
    if (config === undefined) throw sourcesConfigError('is not valid JSON');
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw sourcesConfigError('expected a JSON object keyed by source name');
  }
  const entries: Record<string, unknown> = { ...Object.fromEntries(BUILT_IN.map((n) => [n, {}])), ...config };
  const sources = new Map<string, ConfiguredSource>();
  for (const [name, entry] of Object.entries(entries)) {
    if (!SourceName.safeParse(name).success)
      throw sourcesConfigError(`source name "${name.slice(0, 40)}" must be 1-32 lower-case letters, digits or -`);
    if (entry === false) continue;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw sourcesConfigError(`${name}: expected an object of settings, or false to disable`);
    }
    const { kind = name, ...settings } = entry as Record<string, unknown>;
    const source = typeof kind === 'string' && Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
    if (!source) throw sourcesConfigError(`${name}.kind: unknown source kind; known: ${Object.keys(KINDS).join(', ')}`);
    const parsed = source.settingsSchema.safeParse(settings);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = [name, ...(issue?.path ?? []).map(String)].join('.');
      throw sourcesConfigError(`${path}: ${issue?.message ?? 'invalid'}`);
    }
    sources.set(name, configureSource(source, name, parsed.data));
  }
  return sources;
}

/** The settings a kind of source gets when nothing is configured (documentation, tests, local stack). */
export function defaultSettings(kind: string): unknown {
  const source = KINDS[kind];
  return source ? source.settingsSchema.parse({}) : undefined;
}
