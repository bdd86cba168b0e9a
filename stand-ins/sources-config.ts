import { parseJsonOrUndefined } from '../shared/text/index.js';

/**
 * Reading and filling SOURCES_CONFIG for the local stack and its stand-ins, leniently: a configuration
 * that is not a JSON object is left as it is, for the receiver to report with its own message.
 */

/** One source's settings object in SOURCES_CONFIG (unset, blank, not an object, or not listed: undefined). */
export function sourceSettingsOf(sourcesConfig: string | undefined, source: string): Record<string, unknown> | undefined {
  const config = sourcesConfig === undefined || sourcesConfig.trim() === '' ? undefined : parseJsonOrUndefined(sourcesConfig);
  const own = isObject(config) ? config[source] : undefined;
  return isObject(own) ? own : undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

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
  if (!isObject(config)) return sourcesConfig;
  const own = config[source] ?? {};
  if (!isObject(own)) return sourcesConfig;
  return JSON.stringify({ ...config, [source]: { ...defaults, ...own } });
}
