/**
 * Path parameters are checked before any request is built, then percent-encoded, so no input can
 * reach another path (`../`, `%2F`, `/`, spaces, control characters).
 */
import { OpenApiError } from './errors.js';

export type PathParamRule = 'externalKey' | 'externalId' | 'customerId' | 'token';

/** Spec, External IDs: key name max 64, letters, digits, `_` and `-`. */
const EXTERNAL_KEY = /^[A-Za-z0-9_-]{1,64}$/;
/** Spec, External IDs: value max 255, letters, digits and `*`, `-`, `.`, `_`. */
const EXTERNAL_ID = /^[A-Za-z0-9*._-]{1,255}$/;
/** Whitespace (incl. Unicode spaces) and control characters. */
const UNSAFE_CHARS = /[\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

const MAX_LENGTH: Record<PathParamRule, number> = { externalKey: 64, externalId: 255, customerId: 255, token: 1024 };

/** Why a value is refused, or undefined when it is acceptable. */
export function pathParamProblem(rule: PathParamRule, value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_LENGTH[rule]) return `must be at most ${MAX_LENGTH[rule]} characters`;
  // A lone `.`/`..` segment is a dot-segment that servers and proxies collapse.
  if (value === '.' || value === '..') return 'must not be a dot segment';
  if (rule === 'externalKey') return EXTERNAL_KEY.test(value) ? undefined : 'may contain only letters, digits, _ and -';
  if (rule === 'externalId') return EXTERNAL_ID.test(value) ? undefined : 'may contain only letters, digits, *, -, . and _';
  if (value.includes('/') || value.includes('\\')) return 'must not contain a slash';
  if (value.includes('..')) return 'must not contain ..';
  if (value.includes('%')) return 'must not contain % (already percent-encoded input is refused)';
  if (UNSAFE_CHARS.test(value)) return 'must not contain whitespace or control characters';
  return undefined;
}

/** Checks and percent-encodes one path parameter; refuses with `invalid_request` (nothing sent). */
export function encodePathParam(name: string, rule: PathParamRule, value: unknown, route: string): string {
  const problem = pathParamProblem(rule, value);
  if (problem !== undefined) {
    throw new OpenApiError({ kind: 'invalid_request', executed: 'no', messages: [`${name} ${problem}`], route });
  }
  // Key and ID rules admit only characters encodeURIComponent leaves as they are: skip the call.
  if (rule === 'externalKey' || rule === 'externalId') return value as string;
  return encodeURIComponent(value as string);
}
