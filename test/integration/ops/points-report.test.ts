import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, startLocalStack } from '../../../local/index.js';
import { shopifyOrderWebhook } from '../../../kit/webhooks/index.js';
import { opsCommand } from '../../../ops/index.js';
import { CSV_HEADER, jstDay } from '../../../shared/accounting/index.js';

/** `npm run points-report` against `npm start`'s stack: a sale through its intake and worker, then the month's CSV. */

let stack: LocalStack;
/** The JST day the sale's points moved on (read once, so a run across midnight JST still asks for its month). */
let saleDay = '';
const month = () => saleDay.slice(0, 7);

async function run(...args: string[]): Promise<{ code: number; stdout: string[]; stderr: string[] }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await opsCommand(
    ['points-report', ...args],
    { PORT: new URL(stack.urls.intake).port },
    {
      print: (l) => stdout.push(l),
      printError: (l) => stderr.push(l),
    },
  );
  return { code, stdout: stdout.join('\n').split('\n'), stderr };
}

beforeAll(async () => {
  stack = await startLocalStack({});
  // Alice (shopify 1001, 1 %) buys for ¥12,000: 120 points.
  const request = shopifyOrderWebhook(
    'orders/paid',
    'paid',
    { orderId: '7700001', name: '#7700001', customerId: '1001', subtotal: '12000', tax: '0', currency: 'JPY', taxesIncluded: true },
    stack.webhookSecrets.shopify[0] ?? '',
    'wh-points-report-1',
    Date.now(),
  );
  const res = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
  expect(res.status).toBe(202);
  await res.arrayBuffer();
  await stack.queue.waitForIdle({ timeoutMs: 20_000 });
  saleDay = jstDay(Date.now()) ?? '';
}, 60_000);
afterAll(async () => {
  await stack?.close();
});

describe('npm run points-report (npm start)', () => {
  it('prints the month’s CSV on stdout and says it reconciled on the last line of stderr', async () => {
    const { code, stdout, stderr } = await run('--month', month());
    expect(code).toBe(0);
    expect(stdout[0]).toBe(CSV_HEADER);
    expect(stdout.slice(1)).toEqual([`${saleDay},shopify,web,120,0,0,0,0,0,0,0,120,120`]);
    expect(stderr.at(-1)).toBe(`points-report: month=${month()} rows=1 net=120 reconciled=yes`);
  });

  it('prints the same report as JSON with --format json', async () => {
    const { code, stdout } = await run('--month', month(), '--format', 'json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout.join('\n'));
    expect(report).toMatchObject({
      month: month(),
      valuePerPoint: '1',
      reconciled: true,
      totals: { granted: 120, net: 120, net_yen: '120' },
    });
    expect(report.rows).toHaveLength(1);
  });

  it('refuses a month that is not YYYY-MM with what it takes, and reads nothing', async () => {
    const { code, stdout, stderr } = await run('--month', '2026-13');
    expect(code).toBe(2);
    expect(stdout.filter((l) => l !== '')).toEqual([]);
    expect(stderr).toEqual(['points-report: --month takes a month as YYYY-MM (e.g. 2026-12), got "2026-13"']);
  });

  it('refuses a missing --month with the usage', async () => {
    const { code, stderr } = await run();
    expect(code).toBe(2);
    expect(stderr.join('\n')).toMatch(/^--month is required\nusage:\n {2}npm run points-report -- --month YYYY-MM/);
  });
});
