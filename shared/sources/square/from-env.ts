import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles
import { perSourceClients, readJsonSecret, type SecretReader } from '../../config/index.js';
import { createSquareOrdersClient, type SquareOrdersClient } from './client.js';
import { SquareOrdersError } from './errors.js';
import { lazySchema } from '../../schema/index.js';

/**
 * The worker's Square Orders API access, per source (env `SQUARE_ORDERS`, JSON): in AWS a Secrets
 * Manager secret holding `{"access_token": "..."}`, locally the token itself; `origin` for Square's
 * sandbox (`https://connect.squareupsandbox.com`) or the local stand-in.
 */
export const SQUARE_ORDERS_ENV = 'SQUARE_ORDERS';

const Access = lazySchema(() =>
  z
    .object({
      accessTokenSecretArn: z.string().min(1).optional(),
      accessToken: z.string().min(1).optional(),
      origin: z.url({ protocol: /^https?$/ }).optional(),
    })
    .strict()
    .refine((a) => (a.accessTokenSecretArn === undefined) !== (a.accessToken === undefined), 'give accessTokenSecretArn or accessToken'),
);
export const SquareOrdersAccess = lazySchema(() => z.record(z.string(), Access));
export type SquareOrdersAccess = z.infer<typeof SquareOrdersAccess>;

const TokenSecret = lazySchema(() => z.object({ access_token: z.string().min(1) }));

/** One client per configured source, made on first use and kept for the container's life. */
export function squareOrdersFromEnv(
  json: string | undefined,
  secrets: () => SecretReader,
): ((source: string) => SquareOrdersClient | undefined) | undefined {
  if (json === undefined || json === '') return undefined;
  return perSourceClients(SquareOrdersAccess.parse(JSON.parse(json)), (a) => {
    const secretArn = a.accessTokenSecretArn;
    const token = secretArn === undefined ? async () => a.accessToken as string : () => tokenFromSecret(secrets(), secretArn);
    return createSquareOrdersClient({ ...(a.origin ? { origin: a.origin } : {}), accessToken: token });
  });
}

async function tokenFromSecret(reader: SecretReader, secretArn: string): Promise<string> {
  const secret = await readJsonSecret(reader, secretArn, TokenSecret, {
    unreadable: () => new SquareOrdersError('unavailable', 'the Square Orders API token secret could not be read'),
    malformed: () => new SquareOrdersError('unauthorized', 'the Square Orders API token secret holds no {"access_token"}'),
  });
  return secret.access_token;
}
