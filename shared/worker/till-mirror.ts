import { ENV } from '../config/index.js';
import type { TillMirrors } from '../ledger/index.js';
import type { OpenApiClient } from '../openapi/index.js';
import { loadSourceSettings } from '../sources/index.js';
import type { SenderResolvers } from '../sources/resolution.entry.js';
import { type SmaregiClient, type TillMirrorDeps, tillPointsSourceOf } from '../sources/smaregi/index.js';
import type { WorkerLogger } from './types.js';

/**
 * The till mirror the worker runs for the App Proxy's `till_mirror` messages: the first Smaregi source
 * under `tillPoints: membership`, with the worker's own client of that source (SMAREGI, as it resolves
 * the source's transactions with). Undefined when there is none, or no access to it.
 */
export function workerTillMirrorFromEnv(
  env: NodeJS.ProcessEnv,
  parts: {
    senders: SenderResolvers['clients'] | undefined;
    steps: TillMirrors | undefined;
    openapi: unknown;
    logger: WorkerLogger;
    inDoubtSeconds: number;
  },
): TillMirrorDeps | undefined {
  const openapi = parts.openapi as Partial<OpenApiClient>;
  if (!parts.steps || typeof openapi.getMember !== 'function' || typeof openapi.listPoints !== 'function') return undefined;
  const sources = loadSourceSettings(env[ENV.SOURCES_CONFIG]);
  const source = tillPointsSourceOf(sources);
  const linking = source === undefined ? undefined : sources.get(source)?.customerLinking?.();
  const client = source === undefined ? undefined : (parts.senders?.smaregi?.(source) as SmaregiClient | undefined);
  if (!source || !linking?.tillPoints || !client) return undefined;
  return {
    source,
    externalKey: linking.externalKey,
    memberLookup: linking.tillPoints.memberLookup,
    customerField: linking.tillPoints.customerField,
    openapi: openapi as Pick<OpenApiClient, 'getMember' | 'listPoints'>,
    smaregi: {
      addCustomerPoint: (id, delta) => client.addCustomerPoint(id, delta),
      getCustomerPoint: (id) => client.getCustomerPoint(id),
      findCustomerByCode: (code) => client.findCustomerByCode(code),
      readCustomer: (id) => client.readCustomer(id),
      listTransactions: (query) => client.listTransactions(query),
    },
    steps: parts.steps,
    inDoubtSeconds: parts.inDoubtSeconds,
    logger: parts.logger,
  };
}
