import type { SourceConfig } from './sources.js';

/**
 * Square signs the notification URL it was given together with the body. A stage may state that URL
 * (`notificationUrl`: a custom domain or proxy in front of the API); when it does not, the stack
 * fills in the source's own route on the HTTP API, the URL it outputs as `WebhookUrl<source>` (infra/outputs.ts).
 */

const isSquare = (name: string, source: SourceConfig) => ((source as Record<string, unknown>).kind ?? name) === 'square';

/** Names of the stage's Square sources whose notification URL the stack derives. */
export function squareSourcesWithoutUrl(sources: Record<string, SourceConfig>): string[] {
  return Object.entries(sources)
    .filter(([name, source]) => isSquare(name, source) && (source as Record<string, unknown>).notificationUrl === undefined)
    .map(([name]) => name);
}

/** SOURCES_CONFIG with `notificationUrl` set for the given sources (values may be CDK tokens). */
export function withNotificationUrls(
  config: Record<string, Record<string, unknown> | false>,
  urls: Record<string, string>,
): Record<string, Record<string, unknown> | false> {
  return Object.fromEntries(
    Object.entries(config).map(([name, settings]) => [
      name,
      settings !== false && urls[name] !== undefined ? { ...settings, notificationUrl: urls[name] } : settings,
    ]),
  );
}
