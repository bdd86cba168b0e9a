/**
 * Validation of a register, update or resign body (custom fields per type, external IDs, uniqueness)
 * into the changes to apply; every problem of the request in one validation error.
 */
import { MESSAGES } from '../../shared/openapi/index.js';
import { parseDateTime } from './clock.js';
import { apiErrors } from './errors.js';
import type { ClientState, Member } from './model.js';
import { charCount, longerThan } from './text.js';

const SINGLE_BYTE = /^[\x20-\x7e]*$/;
const EXTERNAL_ID = /^[A-Za-z0-9*._-]+$/;
export const COLUMN = /^column(0[1-9]|[1-4][0-9]|50)$/;
/** "Anything readable as a number": sign, leading zeros, decimals (and an exponent, as PHP's is_numeric). */
const NUMERIC = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

export type Body = Record<string, unknown>;

/** The validated changes of one register/update call. Absent keys: unchanged. */
export interface MemberChanges {
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
export function validateMemberChanges(client: ClientState, body: Body, existing: Member | undefined, operator = false): MemberChanges {
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
