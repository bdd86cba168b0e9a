/**
 * The emulator's configuration (format in stand-ins/openapi/README.md "Configuration"): zod schemas, defaults applied
 * in one place, and loading from a file.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { parseDateTime } from './clock.js';
import { longerThan } from './text.js';
import { ConfigError } from './errors.js';

export const CUSTOM_FIELD_TYPES = ['string', 'number', 'date', 'datetime'] as const;

const CustomField = z.strictObject({
  column: z.string().regex(/^column(0[1-9]|[1-4][0-9]|50)$/, 'must be column01 to column50'),
  key: z
    .string()
    .min(1)
    .refine((k) => !longerThan(k, 64), 'must be at most 64 characters'),
  type: z.enum(CUSTOM_FIELD_TYPES),
});
export type CustomField = z.infer<typeof CustomField>;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Rank name -> grant rate. Checked entry by entry rather than with z.record, which silently drops a key
 * named `__proto__`: any name is a rank once configured, and only then.
 */
const Ranks = z
  .custom<Record<string, unknown>>(isObject, 'must be an object of rank names to rates')
  .superRefine((ranks, ctx) => {
    for (const [name, rate] of Object.entries(ranks)) {
      if (name === '' || longerThan(name, 255))
        ctx.addIssue({ code: 'custom', path: [name], message: 'a rank name has 1 to 255 characters' });
      if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'must be a non-negative number' });
      }
    }
  })
  .transform((ranks) => Object.fromEntries(Object.entries(ranks)) as Record<string, number>);

/** Every client field that has a default (and that the admin client patch may change). */
export const ClientSettings = z.strictObject({
  client_secrets: z.array(z.string().min(1)).min(1),
  contracted: z.boolean(),
  uses_points: z.boolean(),
  email_verification: z.boolean(),
  auto_numbering: z.boolean(),
  designated_numbering: z.boolean(),
  rank_feature: z.boolean(),
  default_rank: z
    .string()
    .min(1)
    .refine((r) => !longerThan(r, 255), 'must be at most 255 characters'),
  ranks: Ranks,
  custom_fields: z.array(CustomField).max(50),
  external_keys: z.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and -, max 64')).max(5),
  point_expiry_days: z.number().int().nonnegative().nullable(),
  near_expiry_days: z.number().int().nonnegative().nullable(),
  /** The point history omits entries committed less than this many real milliseconds ago (a read replica behind). */
  history_lag_ms: z.number().int('must be an integer number of milliseconds').nonnegative('must be 0 or more'),
});
export const ClientPatch = ClientSettings.partial();
export type ClientPatch = z.infer<typeof ClientPatch>;

/**
 * A seed customer: the Open API's register parameters (validated like a register call) plus an optional
 * fixed id. Kept as the object it is (z.looseObject would drop a physical key named `__proto__`).
 */
const SeedMember = z
  .custom<{ id?: string } & Record<string, unknown>>(isObject, 'must be an object')
  .refine((m) => m.id === undefined || (typeof m.id === 'string' && m.id !== ''), { message: 'must be a non-empty string', path: ['id'] });
export type SeedMember = z.infer<typeof SeedMember>;

const ClientInput = ClientPatch.extend({
  client_id: z.string().min(1),
  client_secrets: z.array(z.string().min(1)).min(1),
  members: z.array(SeedMember).optional(),
});

export type ClientConfig = z.infer<typeof ClientSettings> & { client_id: string; members: SeedMember[] };

const CLIENT_DEFAULTS: Omit<ClientConfig, 'client_id' | 'client_secrets' | 'members'> = {
  contracted: true,
  uses_points: true,
  email_verification: false,
  auto_numbering: false,
  designated_numbering: false,
  rank_feature: false,
  default_rank: 'regular',
  ranks: { regular: 0.01, gold: 0.05 },
  custom_fields: [],
  external_keys: ['shopify', 'pos_card'],
  point_expiry_days: 365,
  near_expiry_days: null,
  history_lag_ms: 0,
};

const ConfigInput = z.strictObject({
  now: z
    .string()
    .refine((s) => parseDateTime(s, 'second') !== undefined, 'must be "Y-m-d H:i:s"')
    .optional(),
  clients: z.array(ClientInput),
});

export interface EmulatorConfig {
  now?: string;
  clients: ClientConfig[];
}

/** Checks that hold across fields; returns the first problem or undefined. */
export function clientProblem(c: Omit<ClientConfig, 'members'>): string | undefined {
  if (!Object.hasOwn(c.ranks, c.default_rank)) return `client ${c.client_id}: default_rank "${c.default_rank}" is not in ranks`;
  const columns = new Set(c.custom_fields.map((f) => f.column));
  if (columns.size !== c.custom_fields.length) return `client ${c.client_id}: a custom field column is listed twice`;
  const keys = new Set(c.custom_fields.map((f) => f.key));
  if (keys.size !== c.custom_fields.length) return `client ${c.client_id}: a custom field key is listed twice`;
  if (new Set(c.external_keys).size !== c.external_keys.length) return `client ${c.client_id}: an external key is listed twice`;
  return undefined;
}

/** Validates a configuration and applies every default. Throws ConfigError with a readable reason. */
export function parseConfig(input: unknown): EmulatorConfig {
  const parsed = ConfigInput.safeParse(input);
  if (!parsed.success) throw new ConfigError(`invalid emulator configuration: ${z.prettifyError(parsed.error)}`);
  const ids = new Set<string>();
  const clients = parsed.data.clients.map((c): ClientConfig => {
    if (ids.has(c.client_id)) throw new ConfigError(`invalid emulator configuration: client ${c.client_id} is listed twice`);
    ids.add(c.client_id);
    const full: ClientConfig = { ...CLIENT_DEFAULTS, ...stripUndefined(c), members: c.members ?? [] };
    const problem = clientProblem(full);
    if (problem) throw new ConfigError(`invalid emulator configuration: ${problem}`);
    return full;
  });
  return parsed.data.now === undefined ? { clients } : { now: parsed.data.now, clients };
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export async function loadConfigFile(path: string): Promise<EmulatorConfig> {
  const text = await readFile(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${path} is not valid JSON: ${(e as Error).message}`);
  }
  return parseConfig(json);
}

/** The demo configuration that `npm run emulator` (without --config) and `npm start` use. */
export const DEMO_CONFIG_PATH = fileURLToPath(new URL('./demo-config.json', import.meta.url));
