import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createActivityReader } from '../shared/activity/index.js';
import { createCustomerRecords } from '../shared/customers/index.js';
import type { Ledger } from '../shared/ledger/index.js';
import type { OpenApiClient } from '../shared/openapi/index.js';
import { createPrivacyRequests, describeMemberData, eraseMember, type MemberRef } from '../shared/privacy/index.js';
import type { SourceSet } from '../shared/sources/index.js';
import { OpsError, unknownSourceError } from './errors.js';

/**
 * `npm run privacy -- smaregi report|erase <customer code> [--source S] [--stage S]`: an in-store
 * member's disclosure or erasure request (APPI), asked of the operator (docs/privacy.md, "In-store
 * members"). `report` prints, as JSON, everything held about the member: the ledger's records of their
 * sales, spends and returns with each one's activity, the till returns and till sales naming them, the member in the membership service and what
 * till-points mode writes to Smaregi. `erase` redacts it as a Shopify customers/redact does, says what it
 * did, and records the erasure (no code in it) for `npm run privacy -- list`. Running it again changes
 * nothing more.
 */

export interface SmaregiPrivacyTarget {
  documentClient: DynamoDBDocumentClient;
  tableName: string;
  ledger: Ledger;
  openapi: Pick<OpenApiClient, 'getMemberByExternalId'>;
  /** The target's sources (undefined: a local stack that does not say: the source's defaults). */
  sources: SourceSet | undefined;
  /** Days the ledger keeps a record: the tombstone and the erasure's own record are kept as long. */
  ledgerTtlDays: number;
  /** What the source's till-points mode is, when the target says. */
  tillPoints(source: string): 'ignore' | 'membership' | undefined;
}

/** A customer code as Smaregi keeps one (at most 255 characters, printable). */
const MAX_CODE_CHARS = 255;

function memberRef(target: SmaregiPrivacyTarget, source: string, code: string | undefined): MemberRef {
  if (code === undefined) throw new OpsError('usage', 'privacy smaregi takes report <customer code> | erase <customer code>');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (code.length === 0 || code.length > MAX_CODE_CHARS || /[\u0000-\u001f\u007f]/.test(code))
    throw new OpsError('usage', `a customer code is 1 to ${MAX_CODE_CHARS} printable characters`);
  const configured = target.sources?.get(source);
  if (target.sources !== undefined && !configured) throw unknownSourceError(source, target.sources.keys());
  if (configured && configured.kind !== 'smaregi')
    throw new OpsError('usage', `source ${source} is a ${configured.kind} source, not smaregi`);
  return { source, code, externalKey: configured?.customerLinking?.()?.externalKey ?? 'smaregi' };
}

async function membershipOf(target: SmaregiPrivacyTarget, ref: MemberRef) {
  try {
    const member = await target.openapi.getMemberByExternalId(ref.externalKey, ref.code);
    return { memberId: member.id, balance: member.point };
  } catch (e) {
    // Not found is an answer; the service failing is the operator's to see.
    if ((e as { kind?: string }).kind === 'member_not_found') return null;
    throw e;
  }
}

/** What till-points mode writes to Smaregi for this member: the bridge keeps no copy of it. */
function mirrorOf(tillPoints: 'ignore' | 'membership' | undefined, membership: { balance: number } | null) {
  if (tillPoints === 'membership')
    return {
      tillPoints,
      writes:
        "each change of the member's membership points (web and till), added to the point field of their Smaregi customer (会員ポイント相対値更新); the ledger keeps each add as a step (till-mirror#: member and Smaregi customer ids, points)",
      balanceMirrored: membership ? membership.balance : null,
    };
  return { tillPoints: tillPoints ?? 'ignore', writes: 'nothing: Smaregi keeps its own points for the member' };
}

export async function smaregiPrivacyCommand(
  args: string[],
  options: { source: string | undefined },
  target: SmaregiPrivacyTarget,
  print: (line: string) => void,
): Promise<number> {
  const [action, code, extra] = args;
  if ((action !== 'report' && action !== 'erase') || extra !== undefined)
    throw new OpsError('usage', 'privacy smaregi takes report <customer code> | erase <customer code>');
  const source = options.source ?? 'smaregi';
  const ref = memberRef(target, source, code);
  const { documentClient: client, tableName, ledger } = target;
  const records = createCustomerRecords({ client, tableName, clock: Date.now, leaseSeconds: 60, ttlDays: target.ledgerTtlDays });
  const deps = { client, tableName, clock: Date.now, ledger, records, activity: createActivityReader(client, tableName) };
  if (action === 'report') {
    const held = await describeMemberData(deps, ref);
    const membership = await membershipOf(target, ref);
    print(JSON.stringify({ ...held, membership, smaregiMirror: mirrorOf(target.tillPoints(source), membership) }, null, 2));
    const records = held.orders.length + held.returns.length + held.tillReturns.length + held.tillSales.length + held.tillMirrors.length;
    return records > 0 || held.enrolment || held.erased ? 0 : 1;
  }
  const erased = await eraseMember(deps, ref);
  const figures = { orders: erased.orders, refunds: erased.refunds + erased.returns, customers: erased.customers, quarantined: 0 };
  const now = new Date();
  // The shop's proof, as a Shopify redaction's: what was done and when, naming no member.
  await createPrivacyRequests({ client, tableName, clock: Date.now }).save(
    {
      id: `${source}:privacy:erase:${now.toISOString()}`,
      source,
      action: 'redact_customer',
      topic: 'smaregi/erase',
      shopDomain: '-',
      orderIds: [],
      finishedAt: now.toISOString(),
      outcome: 'redacted',
      figures,
    },
    target.ledgerTtlDays,
  );
  for (const what of erased.busy) print(`busy: ${what} is being processed now: left as it was`);
  print(
    `privacy smaregi erase: orders=${erased.orders} refunds=${erased.refunds} returns=${erased.returns} till_returns=${erased.tillReturns} till_sales=${erased.tillSales} till_mirrors=${erased.tillMirrors} customers=${erased.customers} tombstone=${erased.tombstone} busy=${erased.busy.length}`,
  );
  if (erased.busy.length > 0) print('run the erase again in a minute: it goes on where this one stopped');
  return erased.busy.length > 0 ? 1 : 0;
}
