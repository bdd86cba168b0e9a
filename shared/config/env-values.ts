/**
 * The one way settings are read from the environment (the Lambdas, `npm start`, the CLI): a blank
 * variable counts as unset, a number must be a whole number within its range, a list is comma-separated.
 * Each caller words its own error (it names the variable and what it expects) and picks the error class.
 */
import { ConfigurationError } from './errors.js';

/**
 * A variable a function cannot run without (LEDGER_TABLE, QUEUE_URL): its value, or the same typed
 * ConfigurationError (kind `missing_setting`, naming the variable) in every function.
 */
export function requiredSetting(env: NodeJS.ProcessEnv, name: string, what?: string): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new ConfigurationError('missing_setting', what === undefined ? `${name} is not set` : `${name} is not set: ${what}`);
  }
  return value;
}

/** The variable's text, trimmed; undefined when unset or blank. */
export function envText(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
}

/**
 * A whole number from `min` to `max`, or `fallback` when the variable is unset or blank. Anything else
 * throws what `invalid` makes of the raw text.
 */
export function envInteger<F extends number | undefined>(
  env: NodeJS.ProcessEnv,
  name: string,
  range: { fallback: F; min: number; max?: number },
  invalid: (raw: string) => Error,
): number | F {
  const raw = envText(env, name);
  if (raw === undefined) return range.fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < range.min || value > (range.max ?? Number.MAX_SAFE_INTEGER)) throw invalid(raw);
  return value;
}

/** A comma-separated list, each item trimmed, blanks dropped (unset: empty). */
export function envList(env: NodeJS.ProcessEnv, name: string): string[] {
  return splitList(env[name]);
}

/** `a, b,,c` -> ['a', 'b', 'c']. */
export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
