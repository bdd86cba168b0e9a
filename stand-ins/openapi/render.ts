/** The two member forms of the Open API: the list item and the detail form (field order as the Open API lists it). */
import type { Member, ClientSettingsState } from './model.js';
import { heldPoints, pointDisplayFields } from './points.js';
import { setOwn } from './text.js';

const ALL_COLUMNS = Array.from({ length: 50 }, (_, i) => `column${String(i + 1).padStart(2, '0')}`);

export interface DetailOptions {
  withColumnKey: boolean;
  externalIds: boolean;
}

/** Member object (detail form). */
export function detailForm(client: ClientSettingsState, member: Member, now: number, opts: DetailOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: member.id,
    unique_id: member.unique_id,
    pin: member.pin,
    login_id: member.login_id,
    rank: member.rank,
  };
  // column01 to columnNN: as many keys as the highest configured column.
  let highest = 0;
  for (const f of client.custom_fields) highest = Math.max(highest, Number(f.column.slice(6)));
  for (const column of ALL_COLUMNS.slice(0, highest)) out[column] = member.columns.get(column) ?? null;
  out.secret_question = member.secret_question;
  out.secret_answer = member.secret_answer;
  out.point = heldPoints(member, now);
  out.total_point = member.total_point;
  out.logined = member.logined;
  out.enabled = member.enabled;
  out.memo = member.memo;
  out.ud_id = member.ud_id;
  out.point_geted_at = member.point_geted_at;
  if (client.uses_points) Object.assign(out, pointDisplayFields(client, member, now));
  if (opts.withColumnKey) {
    const fields = [...client.custom_fields].sort((a, b) => a.column.localeCompare(b.column));
    for (const f of fields) setOwn(out, f.key, member.columns.get(f.column) ?? null);
  }
  if (opts.externalIds) out.external_ids = Object.fromEntries(member.external_ids);
  out.logined_at = member.logined_at;
  out.created_at = member.created_at;
  out.updated_at = member.updated_at;
  return out;
}

/** Member object (customer list item): all 50 columns, display names, no external_ids / point_*. */
export function listItem(clientId: string, member: Member, now: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: member.id,
    client_id: clientId,
    unique_id: member.unique_id,
    pin: member.pin,
    login_id: member.login_id,
    age: null,
    rank: member.rank,
  };
  for (const c of ALL_COLUMNS) out[c] = member.columns.get(c) ?? null;
  Object.assign(out, {
    secret_question: member.secret_question,
    secret_answer: member.secret_answer,
    point: heldPoints(member, now),
    total_point: member.total_point,
    total_point_count: member.total_point_count,
    logined: member.logined,
    enabled: member.enabled,
    memo: member.memo,
    ud_id: member.ud_id,
    user_agent: null,
    os: null,
    os_version: null,
    app_version: null,
    regist_route: null,
    email_verified_at: null,
    point_geted_at: member.point_geted_at,
    first_booted_at: null,
    last_booted_at: null,
    logined_at: member.logined_at,
    returned_at: null,
    created_at: member.created_at,
    updated_at: member.updated_at,
    change_status_name: member.device_change ? 'Device change in progress' : 'No handover request',
    logined_name: member.logined === 1 ? 'Logged in' : 'Not logged in',
    enabled_name: member.enabled === 1 ? 'Valid' : 'Unusable',
    change_status: member.device_change ? 1 : 0,
    change_code: null,
    change_passcode: null,
    change_requested_at: null,
    change_email: null,
    change_password: null,
    cms_token: null,
    regist_token: null,
    email_token: null,
    password_token: null,
    login_token: null,
    device_token: null,
    token_isuued_at: null,
  });
  return out;
}
