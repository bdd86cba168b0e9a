import puppeteer from 'puppeteer-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { findBrowser } from '../../support/browser.js';
import { withDemoStack } from '../../support/local-stack.js';
import { deliverSmaregi, seedSmaregiCustomer, seedSmaregiTransaction, smaregiFixture, smaregiTransaction } from '../../../kit/smaregi.js';

/** The page's one global the browser-side function below uses (this project compiles without the DOM lib). */
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

/** The console's list of till spends the membership balance cut short, after real Smaregi traffic through `npm start`. */
describe('the operator console: till spends cut short', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  let held = 0;
  withDemoStack({ handlerLogs: 'off', smaregi: { tillPoints: 'membership' } }, (made) => {
    ({ stack, handle } = made);
  });
  beforeAll(async () => {
    // The till's record holds more than the membership service (stale): the till lets the member spend it.
    await seedSmaregiCustomer(stack, { ...(smaregiFixture('customer-member.json') as object), point: '100000' });
    held = (await handle.openapi.getMemberByExternalId('smaregi', 'C-0001')).point;
    await seedSmaregiTransaction(
      stack,
      smaregiTransaction('transaction-sale-tax-included.json', '7301', { spendPoint: String(held + 500 + 200) }),
    );
    await deliverSmaregi(stack, ['7301']);
    await handle.waitForIdle();
  });
  const consoleUrl = () => `${stack.urls.intake}/__local/console/`;

  it('lists the spend with its member, the points spent, taken and short, and the policy', async () => {
    const res = await fetch(`${consoleUrl()}api/shortfalls`);
    const { shortfalls } = (await res.json()) as { shortfalls: Record<string, unknown>[] };
    expect(shortfalls.map(({ at: _at, ...rest }) => rest)).toEqual([
      {
        source: 'smaregi',
        spend: '7301/spend-1',
        member: 'smaregi:C-0001',
        spent: held + 700,
        taken: held + 500,
        short: 200,
        policy: 'clamp',
      },
    ]);
  });

  it('shows the spend in the page’s till spends cut short table', async () => {
    const browser = await puppeteer.launch({ executablePath: findBrowser(), headless: true, args: ['--no-sandbox', '--headless'] });
    try {
      const page = await browser.newPage();
      await page.goto(consoleUrl());
      await page.waitForFunction(() => document.querySelector('#shortfalls tbody')?.textContent?.includes('7301/spend-1') ?? false, {
        timeout: 15_000,
      });
      const text = await page.evaluate(() => document.querySelector('#shortfalls tbody')?.textContent ?? '');
      expect([text.includes('smaregi:C-0001'), text.includes('clamp')]).toEqual([true, true]);
    } finally {
      await browser.close();
    }
  });
});
