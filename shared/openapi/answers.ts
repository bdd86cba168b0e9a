/** Reads a 2xx answer against its schema. */
import type { z } from 'zod';
import { OpenApiError } from './errors.js';
import { parseJsonOrUndefined } from '../text/index.js';

export interface Answer {
  status: number;
  text: string;
}

/**
 * The validated body of a 2xx answer. A body that is not JSON or not the spec's shape is an
 * `invalid_response` that may have been executed: a 2xx came, so the operation ran, but its result
 * cannot be told to the caller.
 */
export function parseBody<S extends z.ZodType>(schema: S, answer: Answer, route: string): z.infer<S> {
  const json = parseJsonOrUndefined(answer.text);
  const r = schema.safeParse(json);
  if (r.success) return r.data;
  const messages = json === undefined ? ['answer is not JSON'] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  throw new OpenApiError({ kind: 'invalid_response', executed: 'unknown', status: answer.status, messages, route });
}
