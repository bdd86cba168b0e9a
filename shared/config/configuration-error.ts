/**
 * A setting the user must fix (an environment variable, a configuration file, a command's arguments),
 * as opposed to a bug or an outage. Every such error extends this one class, so a caller tells them
 * apart with `instanceof` and prints the message alone: it names the variable, file or field (never a
 * secret), and a stack trace adds nothing.
 */
export class ConfigurationError<K extends string = string> extends Error {
  override name = 'ConfigurationError';
  constructor(
    readonly kind: K,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
