import * as z from 'zod';
// gen:senders imports: written by `npm run gen:senders` from SENDER_KINDS (senders.ts); do not edit
import { posSettingsKind } from './pos/settings.js';
import { shopifySettingsKind } from './shopify/settings.js';
import { smaregiSettingsKind } from './smaregi/settings.js';
import { squareSettingsKind } from './square/settings.js';
// gen:senders end
import type { SenderKind } from './senders.js';
import type { ConfiguredSettings, SourceSettingsKind } from './types.js';
import { sourcesConfigError } from './errors.js';
import { parseJsonOrUndefined } from '../text/index.js';
import { lazySchema } from '../schema/index.js';

/**
 * The settings side of every kind of source, keyed by kind, in SENDER_KINDS' order (written by `npm run
 * gen:senders`). Reading SOURCES_CONFIG through this table keeps the webhook parsers out of the bundles
 * that only need settings.
 */
export const SETTINGS_KINDS = {
  // gen:senders table: written by `npm run gen:senders` from SENDER_KINDS (senders.ts); do not edit
  shopify: shopifySettingsKind,
  pos: posSettingsKind,
  square: squareSettingsKind,
  smaregi: smaregiSettingsKind,
  // gen:senders end
  // biome-ignore lint/suspicious/noExplicitAny: each entry keeps its own Settings type
} as const satisfies Readonly<Record<SenderKind, SourceSettingsKind<any>>>;

/** Sources enabled when SOURCES_CONFIG does not mention them (each with its defaults). */
const BUILT_IN = ['shopify', 'pos'] as const;

const SourceName = lazySchema(() => z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/));

/** One enabled source of SOURCES_CONFIG: its name, its kind's entry in `kinds`, its validated settings. */
export interface SourceEntry<K> {
  readonly name: string;
  readonly kind: K;
  readonly settings: unknown;
}

/**
 * The enabled sources of SOURCES_CONFIG, each with its settings checked by its kind's schema (taken from
 * `kinds`, a table keyed by kind). Shared by loadSources and loadSourceSettings: one set of rules and
 * error messages. Throws a ConfigurationError (invalid_sources_config) naming the bad field.
 */
export function readSourcesConfig<K extends { readonly settingsSchema: z.ZodType<unknown, unknown> }>(
  configJson: string | undefined,
  kinds: Readonly<Record<string, K>>,
): SourceEntry<K>[] {
  let config: unknown = {};
  if (configJson !== undefined && configJson.trim() !== '') {
    config = parseJsonOrUndefined(configJson);
    if (config === undefined) throw sourcesConfigError('is not valid JSON');
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw sourcesConfigError('expected a JSON object keyed by source name');
  }
  const entries: Record<string, unknown> = { ...Object.fromEntries(BUILT_IN.map((n) => [n, {}])), ...config };
  const sources: SourceEntry<K>[] = [];
  for (const [name, entry] of Object.entries(entries)) {
    if (!SourceName.safeParse(name).success)
      throw sourcesConfigError(`source name "${name.slice(0, 40)}" must be 1-32 lower-case letters, digits or -`);
    if (entry === false) continue;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw sourcesConfigError(`${name}: expected an object of settings, or false to disable`);
    }
    const { kind = name, ...settings } = entry as Record<string, unknown>;
    const source = typeof kind === 'string' && Object.hasOwn(kinds, kind) ? kinds[kind] : undefined;
    if (!source) throw sourcesConfigError(`${name}.kind: unknown source kind; known: ${Object.keys(kinds).join(', ')}`);
    const parsed = source.settingsSchema.safeParse(settings);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = [name, ...(issue?.path ?? []).map(String)].join('.');
      throw sourcesConfigError(`${path}: ${issue?.message ?? 'invalid'}`);
    }
    sources.push({ name, kind: source, settings: parsed.data });
  }
  return sources;
}

export type SourceSettingsSet = ReadonlyMap<string, ConfiguredSettings>;

// biome-ignore lint/suspicious/noExplicitAny: as SETTINGS_KINDS
const settingsByKind: Readonly<Record<string, SourceSettingsKind<any>>> = SETTINGS_KINDS;

/**
 * The enabled sources of SOURCES_CONFIG, settings side only: same rules, defaults and errors as
 * loadSources (registry.ts), for functions that never read a webhook (no parsers in their bundles).
 */
export function loadSourceSettings(configJson: string | undefined): SourceSettingsSet {
  const sources = new Map<string, ConfiguredSettings>();
  for (const { name, kind, settings } of readSourcesConfig(configJson, settingsByKind)) {
    const { customerLinking } = kind;
    sources.set(name, {
      name,
      kind: kind.kind,
      ...(customerLinking ? { customerLinking: () => customerLinking.call(kind, settings) } : {}),
    });
  }
  return sources;
}
