/**
 * The local stack's secret store: what Secrets Manager is to the deployed functions. The handlers read
 * their webhook secrets and the Open API credentials from it through the same interface and parsing
 * (SecretReader: `{"secrets": [...]}`, `{base_url, client_id, client_secret[, next_client_secret]}`),
 * at every use (no cache: a rotation shows at once). `npm run rotate` without --stage changes it
 * through POST /__local/secrets/rotate; no route ever answers a secret's value.
 */
import * as z from 'zod';
import { type SecretReader, SecretReadError, minWebhookSecretChars } from '../shared/config/index.js';
import { RotationError, rotateSecret, type SecretStore } from '../shared/secret-rotation/index.js';
import type { SourceSet } from '../shared/sources/index.js';
import { parseJsonOrUndefined } from '../shared/text/index.js';
import { type HttpAnswer, jsonAnswer, type LocalRoute } from './http/index.js';

/** The local names, as the stack names them in AWS (`loyalty-bridge/<stage>/...`). */
export const LOCAL_SECRET_IDS = {
  openapi: 'loyalty-bridge/local/openapi',
  webhook: (source: string) => `loyalty-bridge/local/webhook/${source}`,
} as const;

export type LocalSecretStore = SecretReader &
  SecretStore & {
    /** Source -> secret id, for the sources that have webhook secrets here. */
    webhookSecretIds: Readonly<Record<string, string>>;
  };

/** `{"shopify": ["s1"], ...}` and the Open API login, as the stack started with them. */
export function createLocalSecretStore(initial: {
  webhook: Readonly<Record<string, readonly string[]>>;
  openapi: { baseUrl: string; clientId: string; clientSecret: string };
}): LocalSecretStore {
  const values = new Map<string, string>();
  const webhookSecretIds: Record<string, string> = {};
  for (const [source, list] of Object.entries(initial.webhook)) {
    if (list.length === 0) continue; // not configured: the receiver says so, as before
    webhookSecretIds[source] = LOCAL_SECRET_IDS.webhook(source);
    values.set(LOCAL_SECRET_IDS.webhook(source), JSON.stringify({ secrets: list }));
  }
  const { baseUrl, clientId, clientSecret } = initial.openapi;
  values.set(LOCAL_SECRET_IDS.openapi, JSON.stringify({ base_url: baseUrl, client_id: clientId, client_secret: clientSecret }));
  return {
    webhookSecretIds,
    read: async (secretId) => {
      const value = values.get(secretId);
      if (value === undefined) throw new SecretReadError('unavailable', secretId);
      return value;
    },
    write: async (secretId, text) => void values.set(secretId, text),
  };
}

const RotateRequest = z.discriminatedUnion('target', [
  z.object({ target: z.literal('openapi'), step: z.enum(['add', 'retire']), secret: z.string().optional() }),
  z.object({ target: z.literal('webhook'), source: z.string().min(1), step: z.enum(['add', 'retire']), secret: z.string().optional() }),
]);

/**
 * POST /__local/secrets/rotate `{target: "webhook", source, step: "add"|"retire", secret?}` or
 * `{target: "openapi", step, secret?}` -> 200 `{secretId, changed, count, cacheSeconds: 0}`; 400 with
 * the reason (never a value); 404 for a source without secrets here. Admin-guarded like every /__local route.
 */
export function secretRoutes(store: () => LocalSecretStore | undefined, sources: () => SourceSet | undefined): Record<string, LocalRoute> {
  return {
    'POST /__local/secrets/rotate': async ({ body }): Promise<HttpAnswer> => {
      const s = store();
      if (s === undefined) return jsonAnswer(503, { status: 'starting' });
      const request = RotateRequest.safeParse(parseJsonOrUndefined(body.toString('utf8')));
      if (!request.success)
        return jsonAnswer(400, { error: 'expected {"target": "webhook"|"openapi", "source"?, "step": "add"|"retire", "secret"?}' });
      const r = request.data;
      const secretId = r.target === 'openapi' ? LOCAL_SECRET_IDS.openapi : s.webhookSecretIds[r.source];
      if (secretId === undefined) return jsonAnswer(404, { error: `source ${'source' in r ? r.source : ''} has no webhook secret here` });
      const target =
        r.target === 'openapi'
          ? ({ kind: 'openapi' } as const)
          : ({ kind: 'webhook', source: r.source, minLength: minWebhookSecretChars(sources()?.get(r.source)?.kind) } as const);
      try {
        const outcome = await rotateSecret(s, secretId, target, r.step, r.secret === undefined ? {} : { next: r.secret });
        // Read at every use here: nothing to wait for.
        return jsonAnswer(200, { ...outcome, cacheSeconds: 0 });
      } catch (e) {
        if (e instanceof RotationError) return jsonAnswer(400, { error: e.message, kind: e.kind });
        throw e;
      }
    },
  };
}
