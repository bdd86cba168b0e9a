import { afterAll, beforeAll } from 'vitest';
import { type SmaregiStandIn, startSmaregiStandIn } from '../../stand-ins/smaregi/index.js';
import { createSmaregiClient, type SmaregiClient } from '../../shared/sources/smaregi/index.js';

/** The contract, app and secret of the stand-in the tests start. */
const CONTRACT = { contractId: 'c1', clientId: 'app', clientSecret: 'app-secret' } as const;

/**
 * Gives the test file (or describe block) a Smaregi stand-in over HTTP and a client of it that never
 * waits between tries, started before its tests and closed after: read them in tests, not at load.
 */
export function useSmaregiStandIn(): { readonly standIn: SmaregiStandIn; readonly client: SmaregiClient } {
  let standIn: SmaregiStandIn | undefined;
  let client: SmaregiClient | undefined;
  beforeAll(async () => {
    standIn = await startSmaregiStandIn({ ...CONTRACT });
    client = createSmaregiClient({
      contractId: CONTRACT.contractId,
      apiOrigin: standIn.url,
      idOrigin: standIn.url,
      credentials: async () => ({ clientId: CONTRACT.clientId, clientSecret: CONTRACT.clientSecret }),
      sleep: async () => undefined,
    });
  });
  afterAll(async () => {
    await client?.close();
    await standIn?.close();
  });
  return {
    get standIn() {
      if (!standIn) throw new Error('the Smaregi stand-in is not started yet (read it in a test)');
      return standIn;
    },
    get client() {
      if (!client) throw new Error('the Smaregi stand-in is not started yet (read it in a test)');
      return client;
    },
  };
}
