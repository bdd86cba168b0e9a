import { ConfigurationError } from '../config/index.js';

/** SOURCES_CONFIG is not valid: the message names the source and field to fix. */
export const SOURCES_CONFIG_INVALID = 'invalid_sources_config';

export function sourcesConfigError(message: string): ConfigurationError<typeof SOURCES_CONFIG_INVALID> {
  return new ConfigurationError(SOURCES_CONFIG_INVALID, `SOURCES_CONFIG: ${message}`);
}

export const isSourcesConfigError = (e: unknown): e is ConfigurationError<typeof SOURCES_CONFIG_INVALID> =>
  e instanceof ConfigurationError && e.kind === SOURCES_CONFIG_INVALID;
