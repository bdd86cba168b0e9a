import type { CustomerRef } from '../events/index.js';
import type { FoundMember } from '../ledger/index.js';
import type { OperationResult } from './engine/index.js';

/**
 * The members found while one message is processed: a message that runs several canonical events for
 * one member (a till's sale, its points spent, the mirror of them) looks it up once. Per message only
 * (never a cache across messages: a customer relinked or erased since is looked up afresh by the next
 * one), with the latest balance an answer of this message gave: the lookup's, then each points call's.
 */
export interface MemberMemo {
  found(customer: CustomerRef): FoundMember | undefined;
  /** A lookup's answer, or a points call's (its balance after the call). */
  remember(customer: CustomerRef, member: FoundMember): void;
  /** The member's balance as the last answer of this message gave it; undefined: not known to be current. */
  balance(customer: CustomerRef): number | undefined;
  /** A call's effect was found in the history (no balance in the answer): the balance seen is not current. */
  forgetBalance(customer: CustomerRef): void;
  /** A call this memo does not see ran (a refund's debit): no balance seen is current any more. */
  forgetBalances(): void;
}

const keyOf = (c: CustomerRef) => JSON.stringify([c.lookup ?? 'external_id', c.externalKey, c.externalId]);

export function createMemberMemo(): MemberMemo {
  const members = new Map<string, { member: FoundMember; current: boolean }>();
  return {
    found: (customer) => members.get(keyOf(customer))?.member,
    remember: (customer, member) => {
      members.set(keyOf(customer), { member, current: true });
    },
    balance: (customer) => {
      const seen = members.get(keyOf(customer));
      return seen?.current ? seen.member.point : undefined;
    },
    forgetBalance: (customer) => {
      const seen = members.get(keyOf(customer));
      if (seen) seen.current = false;
    },
    forgetBalances: () => {
      for (const seen of members.values()) seen.current = false;
    },
  };
}

/** A points call's result for `found`: its answer's balance is the current one; a call in doubt or found in the history gave none. */
export function noteAnswer(memo: MemberMemo, customer: CustomerRef, found: FoundMember, result: OperationResult): void {
  if (result.kind === 'ran' && result.member && result.memberId === found.id)
    memo.remember(customer, { ...found, point: result.member.point });
  else if (result.kind !== 'refused') memo.forgetBalance(customer);
}
