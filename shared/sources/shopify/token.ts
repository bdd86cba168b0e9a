import * as z from 'zod';
import { type CachedToken, createRenewingToken } from '../../cache/index.js';
import { createTransport, type HttpAnswer, type Transport } from '../../http-client/index.js';
import { ShopifyAdminError } from './errors.js';
import { lazyObject } from '../../schema/index.js';

/**
 * The Admin API access token, in the two forms Shopify issues:
 * - a fixed token (`shpat_…`) of a legacy custom app, used as it is;
 * - the client-credentials grant of a Dev Dashboard app (shopify.dev "Using the client credentials
 *   grant"): `POST https://<shop>/admin/oauth/access_token` with `grant_type=client_credentials`,
 *   `client_id`, `client_secret` (form-encoded) answers `{access_token, scope, expires_in}`; the token
 *   expires (about 24 h). It is kept per container, renewed ahead of expiry, and renewed at once when
 *   the API refuses it (401), one grant at a time however many callers wait.
 */

export type AdminCredentials =
  | { kind: 'token'; accessToken: string }
  | { kind: 'client_credentials'; clientId: string; clientSecret: string };

/** What the Admin client asks for on every request, and tells when a token was refused. */
export interface AdminAccessToken {
  get(): Promise<string>;
  /** The API answered 401 to this token: the next get() fetches (or re-reads) a fresh one. */
  rejected(token: string): void;
}

export interface AdminAccessTokenOptions {
  /** `<shop>.myshopify.com`; the grant is asked at https://<shopDomain>. */
  shopDomain: string;
  /** Another origin (the local stand-in): `http://127.0.0.1:<port>`. */
  origin?: string;
  /** Reads the credentials; `fresh` after a refusal (the operator may have rotated the secret). */
  credentials(opts: { fresh: boolean }): Promise<AdminCredentials>;
  /** A granted token is renewed this long before it expires (default 5 minutes, at most half its life). */
  renewBeforeSeconds?: number;
  now?: () => number;
  /** The grant's overall deadline (default 10 s). */
  timeoutMs?: number;
  /** The HTTP stack the grant goes through (default: a transport of its own, shared/http-client). */
  transport?: Transport;
}

const GrantAnswer = lazyObject(z.object, () => ({
  access_token: z.string().min(1),
  scope: z.string().optional(),
  expires_in: z.number().int().positive(),
}));

const DEFAULT_RENEW_BEFORE_SECONDS = 300;

async function requestGrant(
  transport: Transport,
  origin: string,
  credentials: { clientId: string; clientSecret: string },
  timeoutMs: number,
) {
  let res: HttpAnswer;
  try {
    // The same stack as the Admin API calls (graphql.ts): its answer cap, timeouts and User-Agent.
    res = await transport.send({
      method: 'POST',
      origin,
      path: '/admin/oauth/access_token',
      form: { grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret },
      idempotent: true,
      deadlineMs: timeoutMs,
    });
  } catch (e) {
    throw new ShopifyAdminError('network', `Shopify token grant unreachable at ${origin}: ${e instanceof Error ? e.message : 'failed'}`);
  }
  const text = res.text;
  if (res.status === 400 || res.status === 401 || res.status === 403) {
    // Never the body: it may echo what was sent.
    throw new ShopifyAdminError(
      'unauthorized',
      `Shopify refused the client-credentials grant (${res.status}): check the client id and secret, and that the app is installed on the shop`,
      res.status,
    );
  }
  if (res.status !== 200) throw new ShopifyAdminError('http', `Shopify token grant answered ${res.status}`, res.status);
  let parsed: z.infer<typeof GrantAnswer>;
  try {
    parsed = GrantAnswer.parse(JSON.parse(text));
  } catch {
    throw new ShopifyAdminError('invalid_response', 'Shopify token grant answered without {access_token, expires_in}');
  }
  return parsed;
}

/** The access token of one shop, per container: fixed, or granted and renewed. */
export function createAdminAccessToken(options: AdminAccessTokenOptions): AdminAccessToken {
  const origin = options.origin ?? `https://${options.shopDomain}`;
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const transport = options.transport ?? createTransport();
  let fresh = false;

  async function obtain(): Promise<CachedToken> {
    const credentials = await options.credentials({ fresh });
    fresh = false;
    if (credentials.kind === 'token') return { value: credentials.accessToken, renewAt: Number.POSITIVE_INFINITY };
    const issuedAt = now();
    const grant = await requestGrant(transport, origin, credentials, timeoutMs);
    const lifeMs = grant.expires_in * 1000;
    const renewBeforeMs = Math.min((options.renewBeforeSeconds ?? DEFAULT_RENEW_BEFORE_SECONDS) * 1000, lifeMs / 2);
    return { value: grant.access_token, renewAt: issuedAt + lifeMs - renewBeforeMs };
  }

  const token = createRenewingToken(obtain, now);
  return {
    get: () => token.get(),
    rejected(value) {
      // Re-read the credentials only when this refusal dropped the token (not when it was renewed since).
      if (token.refused(value)) fresh = true;
    },
  };
}
