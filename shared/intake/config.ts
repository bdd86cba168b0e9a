import { ENV } from '../config/environment.js';
import { DEFAULT_MAX_BODY_BYTES } from './body.js';

/** A missing or unusable intake setting; the message names the variable, never a secret. */
export class IntakeConfigError extends Error {
  override readonly name = 'IntakeConfigError';
  readonly kind = 'invalid_configuration' as const;
}

/** MAX_BODY_BYTES, default 256 KiB. */
export function maxBodyBytesFrom(env: NodeJS.ProcessEnv): number {
  const value = env[ENV.MAX_BODY_BYTES];
  if (value === undefined || value.trim() === '') return DEFAULT_MAX_BODY_BYTES;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new IntakeConfigError(`${ENV.MAX_BODY_BYTES} must be a positive integer`);
  return n;
}

/** QUEUE_URL, required unless a queue is passed in. */
export function queueUrlFrom(env: NodeJS.ProcessEnv): string {
  const value = env[ENV.QUEUE_URL];
  if (!value) throw new IntakeConfigError(`${ENV.QUEUE_URL} is not set`);
  return value;
}
