import { randomUUID } from 'node:crypto';
import type { MemberDetail, OpenApiClient } from '../openapi/index.js';
import { asKnownError } from './upstream.js';
import type { CustomerRecords, EnrolOutcomeKind } from '../ledger/index.js';

/** The Open API calls enrolment makes. */
export type EnrolApi = Pick<OpenApiClient, 'getMemberByExternalId' | 'registerMember'>;

export interface EnrolDeps {
  records: CustomerRecords;
  openapi: EnrolApi;
}

export interface EnrolInput {
  source: string;
  /** The membership external key of the source (`shopify`). */
  externalKey: string;
  /** The shop's customer id. */
  customerId: string;
  /** The shop whose delivery asked (kept on the record: shop/redact removes only its shop's). */
  shopDomain?: string | undefined;
}

/** ack: done for good (recorded); retry: back to the queue, nothing lost. */
export type EnrolResult =
  | { action: 'ack'; kind: EnrolOutcomeKind; memberId?: string; reason?: string }
  | { action: 'ack'; kind: 'duplicate'; previous: EnrolOutcomeKind | 'unknown'; memberId?: string }
  /** The customer was erased (customers/redact): a replayed customers/create enrols nobody. */
  | { action: 'ack'; kind: 'redacted' }
  | { action: 'retry'; kind: 'lease_held' | 'outcome_unknown' | 'upstream_error' | 'lease_lost'; reason: string };

/**
 * Registers a member with `external_ids: {<externalKey>: <customerId>}` exactly once, however often and
 * however concurrently it runs: claim the customer record -> look the external id up (found: done, we
 * never register twice) -> register -> record. A lost answer keeps the lease until it runs out, so
 * whoever takes over looks after the lost call has landed or died; "already taken" means a member
 * holds the id: looked up and recorded as done.
 */
export async function enrolCustomer(deps: EnrolDeps, input: EnrolInput): Promise<EnrolResult> {
  const owner = randomUUID();
  const ref = { source: input.source, customerId: input.customerId };
  if (await deps.records.isRedacted(ref)) return { action: 'ack', kind: 'redacted' };
  const claim = await deps.records.claim({ ...ref, externalKey: input.externalKey, owner, shopDomain: input.shopDomain });
  if (!claim.ok) {
    const current = claim.current;
    if (current?.state === 'done') {
      return { action: 'ack', kind: 'duplicate', previous: current.outcome ?? 'unknown', ...memberOf(current.memberId) };
    }
    return { action: 'retry', kind: 'lease_held', reason: 'another attempt holds the customer' };
  }
  const inDoubt = claim.previous !== undefined && (claim.previous.leaseOwner !== undefined || claim.previous.needsReconcile === true);
  const finish = async (kind: EnrolOutcomeKind, memberId?: string, reason?: string): Promise<EnrolResult> => {
    const done = await deps.records.finish(ref, owner, { outcome: kind, ...memberOf(memberId), ...(reason ? { reason } : {}) });
    if (!done) return { action: 'retry', kind: 'lease_lost', reason: 'the lease ran out before the outcome was recorded' };
    return { action: 'ack', kind, ...memberOf(memberId), ...(reason ? { reason } : {}) };
  };
  const giveBack = async (reason: string, unknown: boolean): Promise<EnrolResult> => {
    await deps.records.release(ref, owner, { lastError: reason, needsReconcile: unknown || inDoubt, keepLease: unknown });
    return { action: 'retry', kind: unknown ? 'outcome_unknown' : 'upstream_error', reason };
  };

  const existing = await lookUp(deps.openapi, input);
  if (existing.error) return giveBack(existing.error, false);
  // Found after an attempt of ours that may have registered it: that registration is this enrolment.
  if (existing.member) return finish(inDoubt ? 'enrolled' : 'already_member', existing.member.id);

  try {
    const member = await deps.openapi.registerMember({ external_ids: { [input.externalKey]: input.customerId } }, claim.window);
    return finish('enrolled', member.id);
  } catch (e) {
    const err = asKnownError(e);
    if (err.executed === 'unknown') return giveBack(err.message, true);
    if (err.kind !== 'validation') return giveBack(err.message, false);
    // Perhaps "already taken" (its wording is not fixed by the spec): if a member holds the id now, that is done.
    const after = await lookUp(deps.openapi, input);
    if (after.error) return giveBack(after.error, false);
    if (after.member) return finish(inDoubt ? 'enrolled' : 'already_member', after.member.id);
    return finish('enrol_rejected', undefined, err.message);
  }
}

async function lookUp(openapi: EnrolApi, input: EnrolInput): Promise<{ member?: MemberDetail; error?: string }> {
  try {
    return { member: await openapi.getMemberByExternalId(input.externalKey, input.customerId) };
  } catch (e) {
    const err = asKnownError(e);
    return err.kind === 'member_not_found' ? {} : { error: err.message };
  }
}

const memberOf = (memberId: string | undefined) => (memberId === undefined ? {} : { memberId });
