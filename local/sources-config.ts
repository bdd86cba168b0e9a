import { parseJsonOrUndefined } from '../shared/text/index.js';

/**
 * SOURCES_CONFIG with `defaults` filled into one source's settings (what the configuration says for
 * that source wins), unless the configuration disables the source (`false`) or is not a JSON object
 * (then it is returned as given, and the receiver reports it with its own message).
 */
export function withSourceDefaults(
  sourcesConfig: string | undefined,
  source: string,
  defaults: Record<string, unknown>,
): string | undefined {
  let config: unknown = {};
  if (sourcesConfig !== undefined && sourcesConfig.trim() !== '') {
    config = parseJsonOrUndefined(sourcesConfig);
    if (config === undefined) return sourcesConfig;
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return sourcesConfig;
  const all = config as Record<string, unknown>;
  const own = all[source] ?? {};
  if (typeof own !== 'object' || own === null || Array.isArray(own)) return sourcesConfig;
  return JSON.stringify({ ...all, [source]: { ...defaults, ...own } });
}
