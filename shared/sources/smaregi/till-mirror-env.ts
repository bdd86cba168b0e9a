import { createSecretsManagerReader, ENV, processingSettingsFromEnv, requiredSetting, type SecretReader } from '../../config/index.js';
import { documentClientFromEnv } from '../../dynamodb/index.js';
import { createTillMirrors, isUnfinishedTillMirror } from '../../ledger/index.js';
import type { OpenApiClient } from '../../openapi/index.js';
import { loadSourceSettings, type SourceSettingsSet } from '../source-settings.js';
import { SMAREGI_ENV, smaregiFromEnv } from './from-env.js';
import { settleTillMirrors, type TillMirrorDeps } from './till-mirror.js';

/**
 * The till mirror of a function that holds Smaregi access (env SMAREGI): the first Smaregi source whose
 * till points are the membership balance (`tillPoints: membership`) and that the access names. Used by
 * the App Proxy and the sweep (the web legs), and the nightly audit (the steps left
 * unfinished: settleTillMirrors).
 */
export function tillMirrorDepsFromEnv(
  env: NodeJS.ProcessEnv,
  sources: SourceSettingsSet,
  parts: { openapi: Pick<OpenApiClient, 'getMember' | 'listPoints'>; logger?: TillMirrorDeps['logger'] },
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
      inDoubtSeconds: processingSettingsFromEnv(env).inDoubtSeconds,
      logger: parts.logger,
    };
  }
  return undefined;
}

/** The first source whose till points are the membership balance (`tillPoints: membership`), by name. */
export function tillPointsSourceOf(sources: SourceSettingsSet): string | undefined {
  for (const settings of sources.values()) if (settings.customerLinking?.()?.tillPoints) return settings.name;
  return undefined;
}

/**
 * The nightly audit's till mirror: only a stage with a Smaregi source under `tillPoints: membership` gives
 * it SMAREGI (and SOURCES_CONFIG); the Secrets Manager reader is made on first use.
 */
export function auditTillMirrorFromEnv(
  env: NodeJS.ProcessEnv,
  parts: { openapi: Pick<OpenApiClient, 'getMember' | 'listPoints'>; logger?: TillMirrorDeps['logger'] },
  now: () => number,
): TillMirrorDeps | undefined {
  if (!env[SMAREGI_ENV]) return undefined;
  let reader: SecretReader | undefined;
  const readerOnce = () => {
    reader ??= createSecretsManagerReader();
    return reader;
  };
  return tillMirrorDepsFromEnv(env, loadSourceSettings(env[ENV.SOURCES_CONFIG]), parts, readerOnce, now);
}

/**
 * Finishes the till mirror steps left unfinished (an attempt that died, Smaregi down) and says how many
 * are `conflict` or `refused`: those need an operator (`npm run smaregi -- mirrors`, docs/runbook.md).
 */
export async function settleTillMirrorsReported(
  mirror: TillMirrorDeps,
  logger: { info(message: string, extra?: Record<string, unknown>): void; warn(message: string, extra?: Record<string, unknown>): void },
): Promise<void> {
  // One scan, of the steps not done: the unfinished are settled, then read again by key to count what they came to.
  const open = await mirror.steps.listOpen();
  const settled = await settleTillMirrors(mirror, open);
  const now = await Promise.all(open.map((s) => (isUnfinishedTillMirror(s) ? mirror.steps.get(s.source, s.marker) : s)));
  const stuck = now.filter((s) => s?.state === 'conflict' || s?.state === 'refused');
  logger.info(`till mirror: settled=${settled} conflict_or_refused=${stuck.length}`, { source: mirror.source });
  if (stuck.length > 0) logger.warn('till mirror steps need an operator: npm run smaregi -- mirrors', { count: stuck.length });
}
