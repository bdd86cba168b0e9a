/**
 * One rotation step on a secret store: read, compute the new value (values.ts), check, write. The
 * same for Secrets Manager (ops, `--stage`) and the local stack's store (local/secret-store.ts).
 */
import { type RotationStep, type RotationTarget, RotationError, rotatedValue } from './values.js';

/** Where secrets live: Secrets Manager in AWS, the local stack's store under `npm start`. */
export interface SecretStore {
  read(secretId: string): Promise<string>;
  write(secretId: string, text: string): Promise<void>;
}

export interface RotationOutcome {
  secretId: string;
  /** false: the secret already was as the step wants it (nothing written). */
  changed: boolean;
  /** Secrets held afterwards (see RotatedValue). */
  count: number;
}

/** Does the token endpoint accept these credentials (`{base_url, client_id, client_secret}`)? */
export type TokenCheck = (credentialsText: string) => Promise<boolean>;

/** A token request of the spec (POST /api/ext/token): 200 yes, 401 no, anything else cannot tell. */
export const tokenAccepted: TokenCheck = async (text) => {
  const c = JSON.parse(text) as { base_url: string; client_id: string; client_secret: string };
  const res = await fetch(new URL('/api/ext/token', c.base_url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret }),
    signal: AbortSignal.timeout(10_000),
  });
  await res.body?.cancel();
  if (res.status === 200) return true;
  if (res.status === 401) return false;
  throw new RotationError('not_accepted', `the token endpoint answered ${res.status}: cannot tell whether the new client secret works`);
};

/**
 * Applies `step` to the secret. Retiring the Open API client secret first asks the token endpoint
 * whether the new one works: promoted too early, the worker would have no secret that does.
 */
export async function rotateSecret(
  store: SecretStore,
  secretId: string,
  target: RotationTarget,
  step: RotationStep,
  opts: { next?: string; tokenCheck?: TokenCheck } = {},
): Promise<RotationOutcome> {
  const current = await store.read(secretId);
  const value = rotatedValue(current, secretId, target, step, opts.next);
  if (value.text === undefined) return { secretId, changed: false, count: value.count };
  if (target.kind === 'openapi' && step === 'retire' && !(await (opts.tokenCheck ?? tokenAccepted)(value.text))) {
    throw new RotationError(
      'not_accepted',
      'the membership service refuses the new client secret: have its operator switch to it first (nothing was written)',
    );
  }
  await store.write(secretId, value.text);
  return { secretId, changed: true, count: value.count };
}
