/**
 * Response schemas of the Open API (spec: "Resources and their fields"). Objects are loose: unknown
 * fields pass through, because the spec says internal fields change without notice. Only what the
 * spec guarantees is checked.
 */
import * as z from 'zod'; // namespace import: lets esbuild drop zod's locales from Lambda bundles
import { lazyObject, lazySchema } from '../schema/index.js';

const int = lazySchema(() => z.number().int());
const nullableString = lazySchema(() => z.string().nullable());
/** Fields the spec lists but allows to be null or absent in some configurations. */
const optionalString = lazySchema(() => nullableString.optional());

/** PHP encodes an empty map as `[]`: accept it as `{}`. */
const externalIds = lazySchema(() => z.preprocess((v) => (Array.isArray(v) && v.length === 0 ? {} : v), z.record(z.string(), z.string())));

export const TokenResponse = lazyObject(z.looseObject, () => ({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().positive(),
  scope: z.string().nullable().optional(),
}));
export type TokenResponse = z.infer<typeof TokenResponse>;

/** Member, detail form (`{member: ...}` of detail, register, update, login, point grant). */
export const MemberDetail = lazyObject(z.looseObject, () => ({
  id: z.string().min(1),
  unique_id: optionalString,
  pin: optionalString,
  login_id: optionalString,
  rank: optionalString,
  secret_question: optionalString,
  secret_answer: optionalString,
  point: int,
  total_point: int,
  logined: int,
  enabled: int,
  memo: optionalString,
  ud_id: optionalString,
  point_geted_at: optionalString,
  /** `--` when none; use parseDisplayDate. Absent for clients without the point feature. */
  point_used_at: z.string().optional(),
  point_expired_at: z.string().optional(),
  /** Always a string, `--` or comma-grouped; use parseDisplayNumber. */
  point_expired_point: z.string().optional(),
  /** Absent in login, point-grant and calculation answers. */
  external_ids: externalIds.optional(),
  logined_at: optionalString,
  created_at: z.string(),
  updated_at: z.string(),
}));
export type MemberDetail = z.infer<typeof MemberDetail>;

/** Member, list form (`members[]` of the customer list): all 50 custom fields, no external IDs. */
export const MemberListItem = lazyObject(z.looseObject, () => ({
  id: z.string().min(1),
  client_id: z.string(),
  unique_id: optionalString,
  pin: optionalString,
  login_id: optionalString,
  rank: optionalString,
  point: int,
  total_point: int,
  total_point_count: int,
  logined: int,
  enabled: int,
  created_at: z.string(),
  updated_at: z.string(),
}));
export type MemberListItem = z.infer<typeof MemberListItem>;

export const Paging = lazyObject(z.object, () => ({
  total: int,
  per_page: int,
  current_page: int,
  last_page: int,
}));

export const MemberList = lazySchema(() => z.looseObject({ members: z.array(MemberListItem), ...Paging.shape }));
export type MemberList = z.infer<typeof MemberList>;

export const PointItem = lazyObject(z.looseObject, () => ({
  id: z.string().min(1),
  /** Negative for a deduction. */
  point: int,
  title: nullableString,
  /** Deprecated, always null; may disappear. */
  detail: z.unknown().optional(),
  remarks: nullableString,
  expired_at: nullableString,
  created_at: z.string(),
  updated_at: z.string(),
}));
export type PointItem = z.infer<typeof PointItem>;

/** Point history, newest first. */
export const PointHistoryPage = lazySchema(() => z.looseObject({ points: z.array(PointItem), ...Paging.shape }));
export type PointHistoryPage = z.infer<typeof PointHistoryPage>;

export const ExpiryItem = lazyObject(z.looseObject, () => ({
  expired_at: z.string(),
  /** Always a string; use parseDisplayNumber. */
  point: z.string(),
}));
export type ExpiryItem = z.infer<typeof ExpiryItem>;

/** Point expiry summary, nearest expiry first. */
export const ExpiryPage = lazySchema(() => z.looseObject({ points: z.array(ExpiryItem), ...Paging.shape }));
export type ExpiryPage = z.infer<typeof ExpiryPage>;

/** Only `member` is returned, so the envelope need not keep other keys. */
export const MemberEnvelope = lazySchema(() => z.object({ member: MemberDetail }));
export const StatusEnvelope = lazySchema(() => z.looseObject({ status: z.literal(true) }));

/** `schema` compiled (z.compile) on first use, so a cold start pays only for the answers it reads. */
function compiledOnUse<S extends z.ZodType>(schema: S): () => S {
  let compiled: S | undefined;
  return () => (compiled ??= z.compile(schema));
}

/**
 * What the client validates answers with: the schemas above, compiled to a generated parser (same
 * results; a failure falls back to the runtime parser for its issues), several times cheaper per
 * answer than the runtime parser. Kept apart from the exported schemas, which callers may extend.
 */
export const Answers = {
  token: compiledOnUse(TokenResponse),
  member: compiledOnUse(MemberEnvelope),
  status: compiledOnUse(StatusEnvelope),
  memberList: compiledOnUse(MemberList),
  pointHistory: compiledOnUse(PointHistoryPage),
  expiries: compiledOnUse(ExpiryPage),
} as const;

/** Register/update parameters (spec: "Customer register"). Custom fields by column or key name. */
export const MemberInput = lazyObject(z.looseObject, () => ({
  unique_id: z.string().optional(),
  login_id: z.string().optional(),
  password: z.string().optional(),
  rank: z.string().optional(),
  secret_question: z.string().optional(),
  secret_answer: z.string().optional(),
  logined: z.union([z.literal(0), z.literal(1)]).optional(),
  enabled: z.union([z.literal(0), z.literal(1)]).optional(),
  logined_at: z.string().optional(),
  ud_id: z.string().optional(),
  with_column_key: z.boolean().optional(),
  external_ids: z.record(z.string(), z.string()).optional(),
}));
/** Custom fields (`column01`..., or their key names) travel as extra string keys. */
export type MemberInput = z.infer<typeof MemberInput> & { [customField: string]: unknown };

/** What a grant and a calculation both take beside their amount. */
const pointsWriteOptions = () => ({
  title: z.string().optional(),
  /** `Y-m-d`; becomes 23:59:59 of that day. */
  expired_at: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'expired_at must be Y-m-d')
    .optional(),
  remarks: z.string().optional(),
});

export const PointGrantInput = lazySchema(() => z.object({ point: int, ...pointsWriteOptions() }));
export type PointGrantInput = z.infer<typeof PointGrantInput>;

export const PointCalculationInput = lazySchema(() => z.object({ amount: int.nonnegative(), ...pointsWriteOptions() }));
export type PointCalculationInput = z.infer<typeof PointCalculationInput>;
