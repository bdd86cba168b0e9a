/**
 * `npx tsx demo/late-commit-proof.ts`: `npm start`'s stack with its defaults (IN_DOUBT_SECONDS 120 s), one
 * Shopify order whose points calculation the emulator answers with a reset and applies 30 s later (the
 * `late_commit` fault: later than the 30-s lease and its 15-s margin). Prints the member's entries carrying
 * the order's marker every 10 s until the order is done, then the ledger's outcome: one entry, never two.
 * Takes about 2.5 minutes (the horizon is real time here).
 */
import { loadConfigFile, DEMO_CONFIG_PATH } from '../stand-ins/openapi/index.js';
import { shopifyOrderWebhook } from '../kit/webhooks/index.js';
import { startLocalStack } from '../local/index.js';
import { purchaseMarker } from '../shared/points/index.js';
import { createOpenApiClient, staticCredentials } from '../shared/openapi/index.js';

const ALICE = '8f6d2c1e-0001-4000-8000-000000000001';

const stack = await startLocalStack({ emulatorConfig: await loadConfigFile(DEMO_CONFIG_PATH), env: process.env });
const api = createOpenApiClient({ credentials: staticCredentials(stack.openApi) });
try {
  const admin = (path: string, body: unknown) =>
    fetch(`${stack.urls.emulator}/__emulator/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  await admin('faults', {
    method: 'POST',
    path: '^/api/ext/users/[^/]+/points/calculation$',
    fault: 'late_commit',
    answer: 'reset',
    commit_after_ms: 30_000,
  });
  const orderId = `${Date.now()}`;
  const started = Date.now();
  const request = shopifyOrderWebhook(
    'orders/paid',
    'paid',
    { orderId, name: '#PROOF', customerId: '1001', subtotal: '10000', tax: '0', currency: 'JPY', taxesIncluded: true },
    stack.webhookSecrets.shopify[0] as string,
    `proof-${orderId}`,
    Date.now(),
  );
  const accepted = await fetch(`${stack.urls.intake}${request.path}`, { method: 'POST', headers: request.headers, body: request.body });
  console.log(`delivered order ${orderId}: ${accepted.status}`);
  const marker = purchaseMarker('shopify', orderId);
  for (;;) {
    await new Promise((r) => setTimeout(r, 10_000));
    const history = await stack.ledger.getOrder({ source: 'shopify', orderId });
    const entries = await entriesOf(marker);
    console.log(
      `t=${Math.round((Date.now() - started) / 1000)}s entries=${JSON.stringify(entries)} order=${history?.state}/${history?.outcome ?? '-'} inDoubtUntil=${history?.inDoubtUntil ? new Date(history.inDoubtUntil).toISOString() : '-'}`,
    );
    if (history?.state === 'done' || Date.now() - started > 300_000) {
      console.log(`proof: order=${history?.outcome} entries=${entries.length} points=${JSON.stringify(entries)}`);
      break;
    }
  }
} finally {
  await api.close();
  await stack.close();
}

async function entriesOf(marker: string): Promise<number[]> {
  const page = await api.listPoints(ALICE, { perPage: 1000 });
  return page.points.filter((p) => p.remarks === marker).map((p) => p.point);
}
