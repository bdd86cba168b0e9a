import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createPrivacyRequests, type PrivacyRequestRecord } from '../shared/privacy/index.js';
import { OpsError } from './errors.js';
import { jstIfInstant } from '../shared/time/index.js';

/**
 * `npm run privacy -- list | show <id>`: the shop's privacy requests (Shopify's compliance topics) and
 * what the bridge did with each; `show` prints a data request's report, to send to the shop.
 */

function line(r: PrivacyRequestRecord): string {
  const f = r.figures;
  const what = `orders=${f.orders} refunds=${f.refunds} customers=${f.customers} quarantined=${f.quarantined}`;
  const asked = r.requestId ? `  request ${r.requestId}` : '';
  return `${r.id}  ${r.topic}  ${r.shopDomain}  ${r.outcome} ${jstIfInstant(r.finishedAt)}  ${what}${asked}`;
}

export async function privacyCommand(
  args: string[],
  table: { client: DynamoDBDocumentClient; tableName: string },
  print: (line: string) => void,
): Promise<number> {
  const requests = createPrivacyRequests({ ...table, clock: Date.now });
  const [sub, id, extra] = args;
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
  throw new OpsError('usage', 'privacy takes list | show <id>');
}
