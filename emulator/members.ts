/**
 * Customer records: register/update validation (custom fields per type, external IDs, uniqueness),
 * applying the changes, indexes, resign.
 */
import { randomUUID } from 'node:crypto';
import { MESSAGES } from '../shared/openapi/messages.js';
import { formatDateTime, parseDateTime } from './clock.js';
import { apiErrors } from './errors.js';
import type { ClientState, Member } from './model.js';
import { charCount, longerThan } from './text.js';

const SINGLE_BYTE = /^[\x20-\x7e]*$/;
const EXTERNAL_ID = /^[A-Za-z0-9*._-]+$/;
const COLUMN = /^column(0[1-9]|[1-4][0-9]|50)$/;
/** "Anything readable as a number": sign, leading zeros, decimals (and an exponent, as PHP's is_numeric). */
const NUMERIC = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

type Body = Record<string, unknown>;

/** The validated changes of one register/update call. Absent keys: unchanged. */
interface MemberChanges {
  unique_id?: string | null;
  login_id?: string | null;
  password?: string;
  rank?: string;
  columns: Map<string, string | null>;
  secret_question?: string | null;
  secret_answer?: string | null;
  logined?: 0 | 1;
  enabled?: 0 | 1;
  logined_at?: string;
  ud_id?: string | null;
  external_ids: Map<string, string>;
}

const label = (field: string): string => field.replace(/_/g, ' ');

function zeroOrOne(v: unknown): 0 | 1 | undefined {
  if (v === 0 || v === '0') return 0;
  if (v === 1 || v === '1') return 1;
  return undefined;
}

/** Validates a register (existing undefined) or update body. Throws the Open API's validation error listing every problem. */
function validate(client: ClientState, body: Body, existing: Member | undefined, operator = false): MemberChanges {
  const errors: string[] = [];
  const changes: MemberChanges = { columns: new Map(), external_ids: new Map() };
  const has = (k: string): boolean => body[k] !== undefined && body[k] !== null;

  const str = (field: string, max: number, singleByte: boolean): string | undefined => {
    const v = body[field];
    if (typeof v !== 'string') {
      errors.push(MESSAGES.mustBeString(label(field)));
      return undefined;
    }
    if (singleByte && !SINGLE_BYTE.test(v)) errors.push(MESSAGES.singleByte(label(field)));
    if (longerThan(v, max)) errors.push(MESSAGES.maxLength(label(field), max));
    return v;
  };

  /** A single-byte identifier no other customer may hold; '' and undefined (not a string) are the caller's. */
  const identifier = (field: 'unique_id' | 'login_id', index: Map<string, Member>, usedMessage: string): string | undefined => {
    const v = str(field, 255, true);
    if (v === undefined || v === '') return v;
    const owner = index.get(v);
    if (owner && owner !== existing) errors.push(usedMessage);
    return v;
  };

  if (has('unique_id')) {
    const v = identifier('unique_id', client.byUniqueId, MESSAGES.uniqueIdUsed);
    // The API's table of messages: an empty unique_id, rank or password answers "The password field is required.".
    if (v === '') errors.push(MESSAGES.passwordRequired);
    else if (v !== undefined) changes.unique_id = v;
  }
  if (has('login_id')) {
    const v = identifier('login_id', client.byLoginId, MESSAGES.loginIdUsed);
    if (v !== undefined) changes.login_id = v === '' ? null : v;
  }
  if (has('password')) {
    const v = str('password', 255, true);
    if (v === '') errors.push(MESSAGES.passwordRequired);
    else if (v !== undefined) {
      if (charCount(v) < 4) errors.push(MESSAGES.minLength('password', 4));
      changes.password = v;
    }
  }
  if (has('rank')) {
    const v = str('rank', 255, false);
    if (v === '') errors.push(MESSAGES.passwordRequired);
    else if (v !== undefined) {
      const current = existing?.rank ?? client.config.default_rank;
      if (!Object.hasOwn(client.config.ranks, v)) errors.push(MESSAGES.rankInvalid);
      else if (client.config.rank_feature && !operator && v !== current) errors.push(MESSAGES.rankLocked);
      else changes.rank = v;
    }
  }
  for (const field of ['secret_question', 'secret_answer', 'ud_id'] as const) {
    if (has(field)) {
      const v = str(field, 255, false);
      if (v !== undefined) changes[field] = v === '' ? null : v;
    }
  }
  for (const field of ['logined', 'enabled'] as const) {
    if (has(field)) {
      const v = zeroOrOne(body[field]);
      if (v === undefined) errors.push(MESSAGES.zeroOrOne(field));
      else changes[field] = v;
    }
  }
  const loginedAtGiven = has('logined_at') && body.logined_at !== '';
  if (loginedAtGiven) {
    const v = body.logined_at;
    if (typeof v !== 'string' || parseDateTime(v, 'second') === undefined) errors.push(MESSAGES.loginedAtFormat);
    else changes.logined_at = v;
  }
  if (changes.logined === 1 && !loginedAtGiven) errors.push(MESSAGES.loginedAtRequired);

  validateColumns(client, body, changes, errors);
  validateExternalIds(client, body, existing, changes, errors);

  if (errors.length > 0) throw apiErrors.validation(errors);
  return changes;
}

function validateColumns(client: ClientState, body: Body, changes: MemberChanges, errors: string[]): void {
  const fields = client.config.custom_fields;
  const byColumn = new Map(fields.map((f) => [f.column, f]));
  const byKey = new Map(fields.map((f) => [f.key, f]));
  let missingSettingReported = false;
  for (const [name, raw] of Object.entries(body)) {
    // A physical key name stands for its column; a column name wins when both are sent.
    const keyed = byKey.get(name);
    const field = byColumn.get(name) ?? (keyed && !Object.hasOwn(body, keyed.column) ? keyed : undefined);
    if (!field) {
      if (COLUMN.test(name) && fields.length === 0 && !missingSettingReported) {
        errors.push(MESSAGES.customFieldsNotConfigured);
        missingSettingReported = true;
      }
      // Columns the client has not configured are ignored, like unconfigured external keys.
      continue;
    }
    const column = field.column;
    if (raw === null || raw === '') {
      changes.columns.set(column, null);
      continue;
    }
    if (typeof raw !== 'string') {
      errors.push(MESSAGES.mustBeString(column));
      continue;
    }
    switch (field.type) {
      case 'string':
        changes.columns.set(column, raw);
        break;
      case 'number':
        if (!NUMERIC.test(raw)) errors.push(MESSAGES.numberFormat(column));
        else changes.columns.set(column, raw);
        break;
      case 'date':
        if (parseDateTime(raw, 'date') === undefined) errors.push(MESSAGES.dateFormat(column));
        else changes.columns.set(column, raw.replace(/-/g, ''));
        break;
      case 'datetime':
        if (parseDateTime(raw, 'minute') === undefined) errors.push(MESSAGES.dateTimeFormat(column));
        else changes.columns.set(column, raw.replace(/[- :]/g, ''));
        break;
    }
  }
}

function validateExternalIds(
  client: ClientState,
  body: Body,
  existing: Member | undefined,
  changes: MemberChanges,
  errors: string[],
): void {
  const raw = body.external_ids;
  if (raw === undefined || raw === null) return;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    errors.push(MESSAGES.externalIdsObject);
    return;
  }
  const configured = new Set(client.config.external_keys);
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!configured.has(key)) continue; // the Open API ignores unconfigured keys silently
    if (value === null || value === undefined || value === '') {
      errors.push(MESSAGES.externalIdRequired(key));
      continue;
    }
    if (typeof value !== 'string') {
      errors.push(MESSAGES.externalIdString(key));
      continue;
    }
    if (longerThan(value, 255)) errors.push(MESSAGES.externalIdMax(key));
    else if (!EXTERNAL_ID.test(value)) errors.push(MESSAGES.externalIdFormat(key));
    else {
      const owner = client.byExternal.get(key)?.get(value);
      if (owner && owner !== existing) errors.push(MESSAGES.externalIdUsed(key));
      else changes.external_ids.set(key, value);
    }
  }
}

function nextNumber(client: ClientState, taken: (candidate: string) => boolean): string {
  for (;;) {
    const candidate = String(client.nextNumber++).padStart(10, '0');
    if (!taken(candidate)) return candidate;
  }
}

let memberSeq = 0;

function setIndexed(index: Map<string, Member>, member: Member, from: string | null, to: string | null): void {
  if (from !== null && index.get(from) === member) index.delete(from);
  if (to !== null) index.set(to, member);
}

function apply(client: ClientState, member: Member, changes: MemberChanges, now: number): void {
  if (changes.unique_id !== undefined) {
    setIndexed(client.byUniqueId, member, member.unique_id, changes.unique_id);
    member.unique_id = changes.unique_id;
  }
  if (changes.login_id !== undefined) {
    setIndexed(client.byLoginId, member, member.login_id, changes.login_id);
    member.login_id = changes.login_id;
  }
  if (changes.password !== undefined) member.password = changes.password;
  if (changes.rank !== undefined) member.rank = changes.rank;
  if (changes.secret_question !== undefined) member.secret_question = changes.secret_question;
  if (changes.secret_answer !== undefined) member.secret_answer = changes.secret_answer;
  if (changes.ud_id !== undefined) member.ud_id = changes.ud_id;
  if (changes.logined !== undefined) member.logined = changes.logined;
  if (changes.enabled !== undefined) member.enabled = changes.enabled;
  if (changes.logined_at !== undefined) member.logined_at = changes.logined_at;
  for (const [column, value] of changes.columns) {
    if (value === null) member.columns.delete(column);
    else member.columns.set(column, value);
  }
  for (const [key, value] of changes.external_ids) {
    let index = client.byExternal.get(key);
    if (!index) {
      index = new Map();
      client.byExternal.set(key, index);
    }
    const old = member.external_ids.get(key);
    if (old !== undefined && index.get(old) === member) index.delete(old);
    index.set(value, member);
    member.external_ids.set(key, value);
  }
  member.updated_at = formatDateTime(now);
}

/**
 * Register (the Open API's "Customer register"). `seed`: a customer of the configuration, set up by the operator, so
 * it may carry a fixed id and any configured rank even with the rank feature on.
 */
export function registerMember(client: ClientState, body: Body, now: number, seed?: { id: string | undefined }): Member {
  const fixedId = seed?.id;
  const changes = validate(client, body, undefined, seed !== undefined);
  if (fixedId !== undefined && client.members.has(fixedId)) throw apiErrors.validation([`The id ${fixedId} is already used.`]);
  const nowText = formatDateTime(now);
  const member: Member = {
    seq: ++memberSeq,
    id: fixedId ?? randomUUID(),
    unique_id: null,
    pin: null,
    login_id: null,
    password: null,
    rank: client.config.default_rank,
    columns: new Map(),
    secret_question: null,
    secret_answer: null,
    total_point: 0,
    total_point_count: 0,
    logined: 0,
    enabled: 1,
    memo: null,
    ud_id: null,
    point_geted_at: null,
    point_used_at: null,
    logined_at: null,
    created_at: nowText,
    updated_at: nowText,
    external_ids: new Map(),
    device_change: false,
    buckets: [],
    unlimited: 0,
    history: [],
  };
  if (changes.unique_id === undefined && client.config.auto_numbering) {
    changes.unique_id = nextNumber(client, (c) => client.byUniqueId.has(c));
  }
  if (client.config.designated_numbering) member.pin = nextNumber(client, () => false);
  apply(client, member, changes, now);
  client.members.set(member.id, member);
  return member;
}

/** Update (the Open API's "Customer update"): omitted keys keep their value. */
export function updateMember(client: ClientState, member: Member, body: Body, now: number): void {
  apply(client, member, validate(client, body, member), now);
}

/** Removes one external ID (the Open API's "External ID delete"); false when the customer has none under that key. */
export function deleteExternalId(client: ClientState, member: Member, key: string, now: number): boolean {
  const value = member.external_ids.get(key);
  if (value === undefined) return false;
  member.external_ids.delete(key);
  const index = client.byExternal.get(key);
  if (index?.get(value) === member) index.delete(value);
  member.updated_at = formatDateTime(now);
  return true;
}

/**
 * Resign: the listed columns are validated and overwritten, then the customer leaves every index, so later
 * reads answer "Member is not found" and its unique_id, login_id and external IDs become free again.
 */
export function resignMember(client: ClientState, member: Member, body: Body, now: number): void {
  const columnsOnly = Object.fromEntries(Object.entries(body).filter(([k]) => COLUMN.test(k)));
  const changes = validate(client, columnsOnly, member);
  apply(client, member, changes, now);
  client.members.delete(member.id);
  if (member.unique_id !== null) setIndexed(client.byUniqueId, member, member.unique_id, null);
  if (member.login_id !== null) setIndexed(client.byLoginId, member, member.login_id, null);
  for (const key of [...member.external_ids.keys()]) deleteExternalId(client, member, key, now);
  for (const [token, h] of client.handoverTokens) if (h.memberId === member.id) client.handoverTokens.delete(token);
}

/** The operator deleted an external key: its values go for every customer. */
export function dropExternalKey(client: ClientState, key: string): void {
  for (const member of client.members.values()) member.external_ids.delete(key);
  client.byExternal.delete(key);
}
