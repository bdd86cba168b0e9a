import type { MemberDetail, OpenApiClient } from '../openapi/index.js';
import { EXTERNAL_ID } from '../sources/index.js';
import { type LinkRefusal, refusal } from './errors.js';
import { asKnownError } from './upstream.js';

/** The Open API calls linking makes. */
export type LinkApi = Pick<OpenApiClient, 'getMemberByExternalId' | 'getMember' | 'checkHandoverToken' | 'updateMember'>;

export interface LinkInput {
  /** The membership external key of the Shopify source (`shopify`). */
  externalKey: string;
  /** Shopify's `logged_in_customer_id` (empty: nobody logged in). */
  customerId: string;
  /** The member id the membership system's link button sent. */
  memberId: string;
  /** The handover token the membership system gave the member (single use). */
  token: string;
}

export type LinkResult =
  | { ok: true; memberId: string; customerId: string /** false: it was linked already, nothing changed. */; changed: boolean }
  | { ok: false; refusal: LinkRefusal };

const MEMBER_ID = /^[A-Za-z0-9-]{1,64}$/;
const TOKEN = /^[A-Za-z0-9._~-]{1,512}$/;

const refuse = (kind: LinkRefusal['kind'], message: string): LinkResult => ({ ok: false, refusal: refusal(kind, message) });

/**
 * Sets the member's external id to the logged-in shop customer, once: a customer linked to this
 * member already is answered linked without a call that changes anything; one linked to another member
 * (or a member linked to another customer) is refused. The handover token is checked (and so used up)
 * only once everything else allows the link, so a refusal never wastes it.
 */
export async function linkCustomer(openapi: LinkApi, input: LinkInput): Promise<LinkResult> {
  if (input.customerId === '') return refuse('not_logged_in', 'log in to the shop first, then press the link button again');
  if (!EXTERNAL_ID.test(input.customerId)) return refuse('invalid_request', 'logged_in_customer_id is not a customer id');
  if (!MEMBER_ID.test(input.memberId)) return refuse('invalid_request', 'the member parameter is missing or malformed');
  if (!TOKEN.test(input.token)) return refuse('invalid_request', 'the token parameter is missing or malformed');

  const holder = await holderOf(openapi, input);
  if ('refusal' in holder) return { ok: false, refusal: holder.refusal };
  if (holder.member?.id === input.memberId) return { ok: true, memberId: input.memberId, customerId: input.customerId, changed: false };
  if (holder.member) return refuse('already_linked', 'this shop account is already linked to another membership');

  let member: MemberDetail;
  try {
    member = await openapi.getMember(input.memberId);
  } catch (e) {
    const err = asKnownError(e);
    if (err.kind === 'member_not_found') return refuse('member_not_found', 'no such member');
    return refuse('unavailable', 'the membership service is unavailable; try again');
  }
  const current = member.external_ids?.[input.externalKey];
  if (current !== undefined && current !== input.customerId) {
    return refuse('already_linked', 'this membership is already linked to another shop account');
  }

  try {
    await openapi.checkHandoverToken(input.token, input.memberId);
  } catch (e) {
    const err = asKnownError(e);
    if (err.kind === 'handover_token_expired') return refuse('expired_token', 'the link has expired; start again from the membership app');
    if (err.kind === 'handover_token_invalid' || err.kind === 'validation') {
      return refuse('invalid_token', 'the link is not valid (already used, or not for this member); start again from the membership app');
    }
    return refuse('unavailable', 'the membership service is unavailable; try again');
  }

  try {
    await openapi.updateMember(input.memberId, { external_ids: { [input.externalKey]: input.customerId } });
    return { ok: true, memberId: input.memberId, customerId: input.customerId, changed: true };
  } catch (e) {
    const err = asKnownError(e);
    // Lost answer, or a refusal ("already taken" when another member won a race): who holds the id now decides.
    const after = await holderOf(openapi, input);
    if ('member' in after && after.member?.id === input.memberId) {
      return { ok: true, memberId: input.memberId, customerId: input.customerId, changed: true };
    }
    if ('member' in after && after.member) return refuse('already_linked', 'this shop account is already linked to another membership');
    return refuse('unavailable', `the link did not complete (${err.kind}); start again from the membership app`);
  }
}

/** The member holding the customer's external id, if any. */
async function holderOf(openapi: LinkApi, input: LinkInput): Promise<{ member?: MemberDetail } | { refusal: LinkRefusal }> {
  try {
    return { member: await openapi.getMemberByExternalId(input.externalKey, input.customerId) };
  } catch (e) {
    const err = asKnownError(e);
    if (err.kind === 'member_not_found') return {};
    return { refusal: refusal('unavailable', 'the membership service is unavailable; try again') };
  }
}
