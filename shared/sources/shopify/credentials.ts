import * as z from 'zod';
import { ConfigurationError, type SecretReader } from '../../config/index.js';
import { parseJsonOrUndefined } from '../../text/index.js';
import { type AdminAccessToken, type AdminCredentials, createAdminAccessToken } from './token.js';
import { lazySchema } from '../../schema/index.js';

/**
 * The Admin API secret (the shop domain is a stage setting), in either form Shopify issues:
 * `{"client_id": "…", "client_secret": "…"}` (a Dev Dashboard app: client-credentials grant) or
 * `{"access_token": "shpat_…"}` (a legacy custom app's fixed token).
 */
const AdminSecret = lazySchema(() =>
  z.union([z.object({ client_id: z.string().min(1), client_secret: z.string().min(1) }), z.object({ access_token: z.string().min(1) })]),
);

/** The credentials in a secret's text; a text that is not one of the two forms names the secret, never its value. */
export function parseAdminSecret(text: string, secretId: string): AdminCredentials {
  // Not JSON reads as undefined and fails the schema: the same error, never quoting the secret.
  const parsed = AdminSecret.safeParse(parseJsonOrUndefined(text));
  // Never the value: only where it is and what it should hold.
  if (!parsed.success)
    throw new ConfigurationError(
      'invalid_admin_secret',
      `secret ${secretId} must hold {"client_id": "<Dev Dashboard client id>", "client_secret": "<its secret>"} or {"access_token": "<Admin API access token>"}`,
    );
  return 'client_id' in parsed.data
    ? { kind: 'client_credentials', clientId: parsed.data.client_id, clientSecret: parsed.data.client_secret }
    : { kind: 'token', accessToken: parsed.data.access_token };
}

/** The shop's access token from a Secrets Manager secret through the shared cached reader (re-read after a refusal). */
export function secretsManagerAdminToken(
  secretId: string,
  reader: SecretReader,
  shop: { shopDomain: string; origin?: string; now?: () => number },
): AdminAccessToken {
  return createAdminAccessToken({
    ...shop,
    credentials: async ({ fresh }) => parseAdminSecret(await reader.read(secretId, { forceRefresh: fresh }), secretId),
  });
}
