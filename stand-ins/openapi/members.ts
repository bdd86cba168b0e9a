/**
 * Customer records: applying validated changes and keeping the indexes (unique_id, login_id, external
 * IDs) true; register, update, external-ID delete, resign.
 */
import { randomUUID } from 'node:crypto';
import { formatDateTime } from './clock.js';
import { apiErrors } from './errors.js';
import { type Body, COLUMN, type MemberChanges, validateMemberChanges } from './member-changes.js';
import type { ClientState, Member } from './model.js';

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
  const changes = validateMemberChanges(client, body, undefined, seed !== undefined);
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
  apply(client, member, validateMemberChanges(client, body, member), now);
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
  const changes = validateMemberChanges(client, columnsOnly, member);
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
