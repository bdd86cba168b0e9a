import { SMAREGI_ENV } from '../../shared/sources/smaregi/index.js';
import type { LocalStandIn } from '../plug-in.js';
import { sourceSettingsOf, withSourceDefaults } from '../sources-config.js';
import { type SmaregiStandIn, startSmaregiStandIn } from './server.js';

/**
 * `npm start`'s Smaregi: the stand-in of the Platform API (SMAREGI_PORT, default 8790) and the
 * `smaregi` source wired to it: the contract (SMAREGI_CONTRACT_ID), the custom webhook header
 * (SMAREGI_WEBHOOK_HEADER, default x-smaregi-webhook-token) and its value (SMAREGI_WEBHOOK_SECRET,
 * at least 32 characters), the stores whose sales earn (SMAREGI_STORE_IDS, comma-separated; unset: every
 * store) and how members are found (SMAREGI_MEMBER_LOOKUP: external_id or unique_id). The last two are
 * the source's `storeIds` and `memberLookup` settings (and SMAREGI_TILL_POINTS its `tillPoints`), as a stage file's `sources.smaregi` sets them.
 * The app's client id and secret are the stand-in's demo values.
 */
export const SMAREGI_LOCAL = {
  port: 8790,
  contractId: 'demo-contract',
  webhookHeader: 'x-smaregi-webhook-token',
  /** At least 32 characters, as every Smaregi webhook secret must be. */
  webhookSecret: 'demo-smaregi-webhook-token-for-local-use',
  clientId: 'demo-smaregi-client-id',
  clientSecret: 'demo-smaregi-client-secret',
} as const;

export interface LocalSmaregiOptions {
  port?: number;
  contractId?: string;
  webhookHeader?: string;
  webhookSecret?: string;
  storeIds?: string[];
  memberLookup?: 'external_id' | 'unique_id';
  /** The source's `tillPoints` (SMAREGI_TILL_POINTS): membership deducts the points spent at the till. */
  tillPoints?: 'ignore' | 'membership';
  /** The source's `returns` (SMAREGI_RETURNS) and `returnWindowDays` (SMAREGI_RETURN_WINDOW_DAYS). */
  returns?: 'manual' | 'auto';
  returnWindowDays?: number;
  /** The stand-in answers 429 past this many API reads per second (off: unset). */
  throttlePerSecond?: number;
}

export interface LocalSmaregi {
  standIn: SmaregiStandIn;
  /** The stand-in's URL (`standIn.url`), and closing it. */
  url: string;
  close(): Promise<void>;
  contractId: string;
  webhookHeader: string;
  webhookSecret: string;
  /** The source settings these options set (the stage file's `sources.smaregi` equivalents). */
  settings: {
    storeIds?: string[];
    memberLookup?: 'external_id' | 'unique_id';
    tillPoints?: 'ignore' | 'membership';
    returns?: 'manual' | 'auto';
    returnWindowDays?: number;
  };
}

export async function startLocalSmaregi(options: LocalSmaregiOptions = {}): Promise<LocalSmaregi> {
  const contractId = options.contractId ?? SMAREGI_LOCAL.contractId;
  const standIn = await startSmaregiStandIn({
    port: options.port ?? 0,
    contractId,
    clientId: SMAREGI_LOCAL.clientId,
    clientSecret: SMAREGI_LOCAL.clientSecret,
    ...(options.throttlePerSecond ? { throttlePerSecond: options.throttlePerSecond } : {}),
  });
  return {
    standIn,
    url: standIn.url,
    close: () => standIn.close(),
    contractId,
    webhookHeader: options.webhookHeader ?? SMAREGI_LOCAL.webhookHeader,
    webhookSecret: options.webhookSecret ?? SMAREGI_LOCAL.webhookSecret,
    settings: {
      ...(options.storeIds ? { storeIds: options.storeIds } : {}),
      ...(options.memberLookup ? { memberLookup: options.memberLookup } : {}),
      ...(options.tillPoints ? { tillPoints: options.tillPoints } : {}),
      ...(options.returns ? { returns: options.returns } : {}),
      ...(options.returnWindowDays ? { returnWindowDays: options.returnWindowDays } : {}),
    },
  };
}

/** The Smaregi source's `tillPoints` as the handlers' SOURCES_CONFIG sets it (ignore unless it says membership). */
export function tillPointsOf(sourcesConfig: string | undefined): 'ignore' | 'membership' {
  return sourceSettingsOf(sourcesConfig, 'smaregi')?.tillPoints === 'membership' ? 'membership' : 'ignore';
}

/**
 * The handlers' environment for the local Smaregi source: its webhook secret, the worker's API access
 * (SMAREGI) and SOURCES_CONFIG with the source enabled, unless that configuration disables it
 * (`"smaregi": false`) or configures it itself.
 */
export function localSmaregiEnvironment(local: LocalSmaregi, env: NodeJS.ProcessEnv, sourcesKey: string): NodeJS.ProcessEnv {
  const access = {
    smaregi: {
      contractId: local.contractId,
      apiOrigin: local.standIn.url,
      idOrigin: local.standIn.url,
      clientId: SMAREGI_LOCAL.clientId,
      clientSecret: SMAREGI_LOCAL.clientSecret,
    },
  };
  const out: NodeJS.ProcessEnv = {
    SMAREGI_WEBHOOK_SECRETS: local.webhookSecret,
    [SMAREGI_ENV]: env[SMAREGI_ENV] ?? JSON.stringify(access),
  };
  const { contractId, webhookHeader, settings } = local;
  const sources = withSourceDefaults(env[sourcesKey], 'smaregi', { contractId, webhookHeader, ...settings });
  // Left as the caller set it (disabled, or not a JSON object): no entry of ours.
  return sources === env[sourcesKey] ? out : { ...out, [sourcesKey]: sources };
}

/** The environment variables `npm start` reads the source's contract and webhook secret from (kit/local-stack/config.ts). */
const CONTRACT_ID_ENV = 'SMAREGI_CONTRACT_ID';
const WEBHOOK_SECRET_ENV = 'SMAREGI_WEBHOOK_SECRET';

type SmaregiInfo = { url: string; contractId: string; tillPoints: 'ignore' | 'membership' };

/** `npm start`'s Smaregi (SMAREGI_PORT): the Platform API stand-in and the `smaregi` source wired to it. */
export const localStandIn: LocalStandIn<LocalSmaregiOptions, LocalSmaregi, SmaregiInfo> = {
  kind: 'smaregi',
  name: 'smaregi',
  port: { variable: 'SMAREGI_PORT', default: SMAREGI_LOCAL.port },
  start: (port, options) => startLocalSmaregi({ ...options, port }),
  environment: localSmaregiEnvironment,
  info: (started, env, sourcesKey) => ({ url: started.url, contractId: started.contractId, tillPoints: tillPointsOf(env[sourcesKey]) }),
  banner: (started) => {
    // The webhook token is shown only when it is the demo's.
    const demo = started.webhookSecret === SMAREGI_LOCAL.webhookSecret;
    const token = demo ? `${started.webhookSecret} (demo default)` : `${WEBHOOK_SECRET_ENV} (not shown)`;
    return {
      services: [],
      secrets: [
        `  Smaregi Platform API     ${started.url}   stand-in: token, GET transactions; POST /__smaregi/customers  POST /__smaregi/transactions`,
        `                           POST /webhooks/smaregi for contract ${started.contractId} (${CONTRACT_ID_ENV}), header ${started.webhookHeader}: ${token}`,
      ],
    };
  },
};
