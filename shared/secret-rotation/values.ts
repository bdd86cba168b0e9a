/**
 * The new content of a secret for one rotation step, from its current content. Pure: text in, text
 * out. Errors name the secret and the rule, never a value (a parse error would quote the text).
 */
import * as z from 'zod';
import { ConfigurationError } from '../config/index.js';
import { parseJsonOrUndefined } from '../text/index.js';

/** What is rotated: a webhook source's signing secrets, or the Open API client secret. */
export type RotationTarget = { kind: 'webhook'; source: string; minLength: number } | { kind: 'openapi' };

/**
 * `add`: the new secret beside the old (webhooks: first in the list; Open API: `next_client_secret`,
 * tried when the token endpoint refuses `client_secret`). `retire`: only the new one stays.
 */
export type RotationStep = 'add' | 'retire';

export type RotationErrorKind = 'malformed_secret' | 'too_short' | 'same_secret' | 'pending' | 'not_accepted';

/** A rotation the current secret or the new value does not allow; nothing was written. */
export class RotationError extends ConfigurationError<RotationErrorKind> {
  override name = 'RotationError';
}

export interface RotatedValue {
  /** The text to write; undefined when the secret already is as the step wants it. */
  text: string | undefined;
  /** Secrets held afterwards (webhooks: the list's length; Open API: 2 with a next client secret, else 1). */
  count: number;
}

// Empty is allowed: the stack creates a webhook secret as {"secrets": []} until it is filled.
const WebhookList = z.object({ secrets: z.array(z.string().min(1)) }).loose();
const OpenApiValue = z.object({ client_secret: z.string().min(1), next_client_secret: z.string().min(1).optional() }).loose();

function parsed<T>(schema: z.ZodType<T>, text: string, secretId: string, shape: string): T {
  const r = schema.safeParse(parseJsonOrUndefined(text));
  if (!r.success) throw new RotationError('malformed_secret', `secret ${secretId} is not ${shape}: fix it by hand first`);
  return r.data;
}

function webhook(
  current: string,
  secretId: string,
  target: { source: string; minLength: number },
  step: RotationStep,
  next?: string,
): RotatedValue {
  const value = parsed(WebhookList, current, secretId, '{"secrets": [...]}');
  const list = value.secrets;
  if (step === 'retire') {
    if (list.length <= 1) return { text: undefined, count: list.length };
    return { text: JSON.stringify({ ...value, secrets: [list[0]] }), count: 1 };
  }
  const secret = next ?? '';
  if (secret.length < target.minLength)
    throw new RotationError('too_short', `the new secret of source ${target.source} must be at least ${target.minLength} characters`);
  if (list[0] === secret) return { text: undefined, count: list.length };
  const secrets = [secret, ...list.filter((s) => s !== secret)];
  return { text: JSON.stringify({ ...value, secrets }), count: secrets.length };
}

function openapi(current: string, secretId: string, step: RotationStep, next?: string): RotatedValue {
  const value = parsed(OpenApiValue, current, secretId, '{"base_url", "client_id", "client_secret"}');
  if (step === 'retire') {
    if (value.next_client_secret === undefined) return { text: undefined, count: 1 };
    const { next_client_secret, ...rest } = value;
    return { text: JSON.stringify({ ...rest, client_secret: next_client_secret }), count: 1 };
  }
  if (next === undefined || next === '') throw new RotationError('too_short', 'the new client secret is empty');
  if (next === value.client_secret) throw new RotationError('same_secret', 'the new client secret is the current one');
  if (value.next_client_secret === next) return { text: undefined, count: 2 };
  // Replacing a pending one could drop the secret the service already switched to.
  if (value.next_client_secret !== undefined)
    throw new RotationError('pending', 'another client secret rotation is pending: finish it with --retire first');
  return { text: JSON.stringify({ ...value, next_client_secret: next }), count: 2 };
}

export function rotatedValue(current: string, secretId: string, target: RotationTarget, step: RotationStep, next?: string): RotatedValue {
  return target.kind === 'webhook' ? webhook(current, secretId, target, step, next) : openapi(current, secretId, step, next);
}
