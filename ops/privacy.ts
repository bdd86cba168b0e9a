import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createPrivacyRequests, type PrivacyRequestRecord } from '../shared/privacy/index.js';
import { OpsError } from './errors.js';
import type { SmaregiPrivacyTarget } from './privacy-smaregi.js';
import { jstIfInstant } from '../shared/time/index.js';

/**
 * `npm run privacy -- list | show <id>`: the shop's privacy requests (Shopify's compliance topics, and the
 * in-store members' erasures) and what the bridge did with each; `show` prints a data request's report,
 * to send to the shop. `npm run privacy -- smaregi report|erase <customer code>`: ops/privacy-smaregi.ts.
 */

function line(r: PrivacyRequestRecord): string {
  const f = r.figures;
  const what = `orders=${f.orders} refunds=${f.refunds} customers=${f.customers} quarantined=${f.quarantined}`;
  const asked = r.requestId ? `  request ${r.requestId}` : '';
  return `${r.id}  ${r.topic}  ${r.shopDomain}  ${r.outcome} ${jstIfInstant(r.finishedAt)}  ${what}${asked}`;
}

export async function privacyCommand(
  args: string[],
  options: { source: string | undefined },
  target: SmaregiPrivacyTarget,
  print: (line: string) => void,
): Promise<number> {
  const [sub, id, extra] = args;
  if (sub === 'smaregi') return (await import('./privacy-smaregi.js')).smaregiPrivacyCommand(args.slice(1), options, target, print);
  if (options.source !== undefined) throw new OpsError('usage', '--source goes with privacy smaregi');
  const table: { client: DynamoDBDocumentClient; tableName: string } = { client: target.documentClient, tableName: target.tableName };
  const requests = createPrivacyRequests({ ...table, clock: Date.now });
  if (sub === 'list' && id === undefined) {
    const records = await requests.list();
    if (records.length === 0) print('no privacy requests recorded');
    for (const r of records) print(line(r));
    print(`privacy: requests=${records.length}`);
    return 0;
  }
  if (sub === 'show' && id !== undefined && extra === undefined) {
    const record = await requests.get(id);
    if (!record) {
      print(`no privacy request ${id} (a data request's report is kept 30 days)`);
      return 1;
    }
    const { pk: _pk, kind: _kind, report, ...rest } = record;
    print(JSON.stringify({ ...rest, ...(report ? { report: JSON.parse(report) } : {}) }, null, 2));
    return 0;
  }
  throw new OpsError('usage', 'privacy takes list | show <id> | smaregi report <customer code> | smaregi erase <customer code>');
}
