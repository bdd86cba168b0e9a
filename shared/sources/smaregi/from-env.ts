import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles
import { perSourceClients, readJsonSecret, type SecretReader } from '../../config/index.js';
import { createSmaregiClient, SMAREGI_HOSTS, type SmaregiClient } from './client.js';
import { SmaregiError } from './errors.js';
import type { AppCredentials } from './token.js';
import { lazySchema } from '../../schema/index.js';

/**
 * The worker's (and the reconcile's) Smaregi API access, per source (env `SMAREGI`, JSON): the contract,
 * the hosts (`production`, `sandbox`, or explicit origins for the local stand-in), and the app's client
 * id and secret: in AWS a Secrets Manager secret holding `{"client_id": "...", "client_secret": "..."}`,
 * locally the values themselves.
 */
export const SMAREGI_ENV = 'SMAREGI';

const Access = lazySchema(() =>
  z
    .object({
      contractId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
      hosts: z.enum(['production', 'sandbox']).default('production'),
      apiOrigin: z.url({ protocol: /^https?$/ }).optional(),
      idOrigin: z.url({ protocol: /^https?$/ }).optional(),
      credentialsSecretArn: z.string().min(1).optional(),
      clientId: z.string().min(1).optional(),
      clientSecret: z.string().min(1).optional(),
    })
    .strict()
    .refine(
      (a) => (a.credentialsSecretArn === undefined) !== (a.clientId === undefined || a.clientSecret === undefined),
      'give credentialsSecretArn, or clientId and clientSecret',
    ),
);
export const SmaregiAccess = lazySchema(() => z.record(z.string(), Access));
export type SmaregiAccess = z.infer<typeof SmaregiAccess>;

const CredentialsSecret = lazySchema(() => z.object({ client_id: z.string().min(1), client_secret: z.string().min(1) }));

/** One client per configured source, made on first use and kept for the container's life (its token too). */
export function smaregiFromEnv(
  json: string | undefined,
  secrets: () => SecretReader,
): ((source: string) => SmaregiClient | undefined) | undefined {
  if (json === undefined || json === '') return undefined;
  return perSourceClients(SmaregiAccess.parse(JSON.parse(json)), (a) => {
    const arn = a.credentialsSecretArn;
    const credentials =
      arn === undefined
        ? async () => ({ clientId: a.clientId as string, clientSecret: a.clientSecret as string })
        : () => credentialsFromSecret(secrets(), arn);
    const hosts = SMAREGI_HOSTS[a.hosts];
    return createSmaregiClient({
      contractId: a.contractId,
      apiOrigin: a.apiOrigin ?? hosts.api,
      idOrigin: a.idOrigin ?? hosts.id,
      credentials,
    });
  });
}

async function credentialsFromSecret(reader: SecretReader, secretArn: string): Promise<AppCredentials> {
  const secret = await readJsonSecret(reader, secretArn, CredentialsSecret, {
    unreadable: () => new SmaregiError('unavailable', 'the Smaregi app credentials secret could not be read'),
    malformed: () => new SmaregiError('unauthorized', 'the Smaregi app credentials secret holds no {"client_id", "client_secret"}'),
  });
  return { clientId: secret.client_id, clientSecret: secret.client_secret };
}
