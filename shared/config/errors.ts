import { KindedError } from '../errors/index.js';

/** The root of this module's errors: each has a `kind` to branch on and its class's `name`. */
export abstract class ConfigModuleError extends KindedError {
  override readonly name: string = 'ConfigModuleError';
}

/**
 * A setting the user must fix (an environment variable, a configuration file, a command's arguments),
 * as opposed to a bug or an outage. Every such error extends this one class, so a caller tells them
 * apart with `instanceof` and prints the message alone: it names the variable, file or field (never a
 * secret), and a stack trace adds nothing.
 */
export class ConfigurationError<K extends string = string> extends ConfigModuleError {
  override name = 'ConfigurationError';
  constructor(
    readonly kind: K,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A secret store read that failed; names the secret, never its value. */
export class SecretReadError extends ConfigModuleError {
  override readonly name = 'SecretReadError';
  constructor(
    readonly kind: 'unavailable' | 'not_a_string',
    readonly secretId: string,
    cause?: unknown,
  ) {
    super(
      kind === 'unavailable' ? `secret ${secretId} could not be read` : `secret ${secretId} holds no SecretString`,
      cause === undefined ? undefined : { cause },
    );
  }
}

export type WebhookSecretsErrorKind = 'not_configured' | 'unavailable' | 'malformed';

/** Never carries a secret value: only the source and what went wrong. */
export class WebhookSecretsError extends ConfigModuleError {
  override readonly name = 'WebhookSecretsError';
  constructor(
    readonly kind: WebhookSecretsErrorKind,
    readonly source: string,
    cause?: unknown,
    message?: string,
  ) {
    super(
      message ??
        (kind === 'not_configured'
          ? `no webhook secret is configured for source ${source}`
          : kind === 'unavailable'
            ? `the webhook secret of source ${source} could not be read`
            : `the webhook secret of source ${source} is not {"secrets": ["..."]}`),
      cause === undefined ? undefined : { cause },
    );
  }
}
