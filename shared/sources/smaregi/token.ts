import * as z from 'zod';
import { type CachedToken, createRenewingToken } from '../../cache/index.js';
import { DEFAULT_CALL_DEADLINE_MS, type Transport } from '../../http-client/index.js';
import { SmaregiError } from './errors.js';
import { lazySchema } from '../../schema/index.js';

/**
 * The app's access token for one contract (client credentials: `POST {id origin}/app/{contract_id}/token`,
 * Basic auth with the app's client id and secret, a form body naming the scopes). Kept for the
 * container's life and renewed `renewBeforeMs` before it expires, or at once when the API says 401.
 * Concurrent callers share one token request.
 */
export const SMAREGI_SCOPES = 'pos.transactions:read pos.customers:read';
/** What mirroring the membership balance to Smaregi's customers adds (会員ポイント更新): asked for only by that token. */
export const SMAREGI_POINT_WRITE_SCOPES = `${SMAREGI_SCOPES} pos.customers:write`;

const TokenAnswer = lazySchema(() => z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().int().positive() }));

export interface AppCredentials {
  clientId: string;
  clientSecret: string;
}

export interface TokenSource {
  token(): Promise<string>;
  /** The API refused the token (401): the next call fetches a new one. */
  forget(token: string): void;
}

export function createTokenSource(opts: {
  idOrigin: string;
  contractId: string;
  credentials: () => Promise<AppCredentials>;
  transport: Transport;
  now?: () => number;
  renewBeforeMs?: number;
  /** Default SMAREGI_SCOPES (reads only). */
  scopes?: string;
}): TokenSource {
  const scopes = opts.scopes ?? SMAREGI_SCOPES;
  const now = opts.now ?? Date.now;
  const renewBeforeMs = opts.renewBeforeMs ?? 60_000;

  async function fetchToken(): Promise<CachedToken> {
    const { clientId, clientSecret } = await opts.credentials();
    const basic = Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64');
    let answer: Awaited<ReturnType<Transport['send']>>;
    try {
      answer = await opts.transport.send({
        method: 'POST',
        origin: opts.idOrigin,
        path: `/app/${encodeURIComponent(opts.contractId)}/token`,
        headers: { authorization: `Basic ${basic}` },
        form: { grant_type: 'client_credentials', scope: scopes },
        idempotent: true,
        deadlineMs: DEFAULT_CALL_DEADLINE_MS,
      });
    } catch (e) {
      throw new SmaregiError('unavailable', `Smaregi token endpoint at ${opts.idOrigin}: ${e instanceof Error ? e.message : 'no answer'}`);
    }
    if (answer.status === 429 || answer.status >= 500)
      throw new SmaregiError('unavailable', `Smaregi token endpoint answered ${answer.status}`, answer.status);
    if (answer.status !== 200) {
      // Never the credentials: only what to check.
      throw new SmaregiError(
        'unauthorized',
        `Smaregi token endpoint answered ${answer.status}: check the app's client id and secret, the contract id and the scopes ${scopes}`,
        answer.status,
      );
    }
    const parsed = TokenAnswer.safeParse(safeJson(answer.text));
    if (!parsed.success)
      throw new SmaregiError('invalid_response', 'Smaregi token endpoint answered without an access_token', answer.status);
    return { value: parsed.data.access_token, renewAt: now() + parsed.data.expires_in * 1000 - renewBeforeMs };
  }

  const token = createRenewingToken(fetchToken, now);
  return {
    token: () => token.get(),
    forget(value) {
      token.refused(value);
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
