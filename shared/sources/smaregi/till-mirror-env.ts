import { ENV, requiredSetting, type SecretReader } from '../../config/index.js';
import { documentClientFromEnv } from '../../dynamodb/index.js';
import { createTillMirrors } from '../../ledger/index.js';
import type { OpenApiClient } from '../../openapi/index.js';
import type { SourceSettingsSet } from '../source-settings.js';
import { SMAREGI_ENV, smaregiFromEnv } from './from-env.js';
import type { TillMirrorDeps } from './till-mirror.js';

/**
 * The till mirror of a function that holds Smaregi access (env SMAREGI): the first Smaregi source whose
 * till points are the membership balance (`tillPoints: membership`) and that the access names. Used by
 * the App Proxy and the sweep (the web legs), and the nightly audit (its reversals, and the steps left
 * unfinished: settleTillMirrors).
 */
export function tillMirrorDepsFromEnv(
  env: NodeJS.ProcessEnv,
  sources: SourceSettingsSet,
  parts: { openapi: Pick<OpenApiClient, 'getMember'>; logger?: TillMirrorDeps['logger'] },
  reader: () => SecretReader,
  now: () => number,
): TillMirrorDeps | undefined {
  const clients = smaregiFromEnv(env[SMAREGI_ENV], reader);
  if (!clients) return undefined;
  for (const settings of sources.values()) {
    const linking = settings.customerLinking?.();
    const smaregi = linking?.tillPoints ? clients(settings.name) : undefined;
    if (!linking?.tillPoints || !smaregi) continue;
    return {
      source: settings.name,
      externalKey: linking.externalKey,
      memberLookup: linking.tillPoints.memberLookup,
      customerField: linking.tillPoints.customerField,
      openapi: parts.openapi,
      smaregi,
      steps: createTillMirrors({ client: documentClientFromEnv(env), tableName: requiredSetting(env, ENV.LEDGER_TABLE), clock: now }),
      logger: parts.logger,
    };
  }
  return undefined;
}
