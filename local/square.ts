import { withSourceDefaults } from '../stand-ins/sources-config.js';

/**
 * Square signs the URL it was given together with the body, so the receiver must know that URL.
 * Locally it is SQUARE_NOTIFICATION_URL, by default the intake's own route; the stack sets the same
 * setting (infra). Both go into SOURCES_CONFIG as `square.notificationUrl`.
 */

/** `http://127.0.0.1:<PORT>/webhooks/square`: what a local sender signs unless told otherwise. */
export function defaultSquareNotificationUrl(intakeUrl: string): string {
  return `${intakeUrl.replace(/\/+$/, '')}/webhooks/square`;
}

/**
 * SOURCES_CONFIG with the Square source enabled and its notification URL filled in, unless the
 * configuration disables Square (`"square": false`) or gives its own URL. Other sources as given.
 */
export function withSquareSource(sourcesConfig: string | undefined, notificationUrl: string): string | undefined {
  return withSourceDefaults(sourcesConfig, 'square', { notificationUrl });
}
