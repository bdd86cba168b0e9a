import puppeteer from 'puppeteer-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack, LocalStackHandle } from '../../../local/index.js';
import { findBrowser } from '../../support/browser.js';
import { withDemoStack } from '../../support/local-stack.js';
import {
  deliverSmaregi,
  seedSmaregiCustomer,
  seedSmaregiTransaction,
  smaregiFixture,
  smaregiTillTransaction,
} from '../../../kit/smaregi.js';

/** The page's one global the browser-side function below uses (this project compiles without the DOM lib). */
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

/** The console's list of till returns (a till's plain returns naming no sale) after real Smaregi traffic through `npm start`. */
describe('the operator console: till returns', () => {
  let stack: LocalStack;
  let handle: LocalStackHandle;
  withDemoStack({ handlerLogs: 'off' }, (made) => {
    ({ stack, handle } = made);
  });
  beforeAll(async () => {
    await seedSmaregiCustomer(stack, smaregiFixture('customer-member.json'));
    await seedSmaregiTransaction(
      stack,
      smaregiTillTransaction('7001', { productId: 'C-7001', storeId: '4', at: '2026-11-30T11:00:00+09:00' }, true),
    );
    await deliverSmaregi(stack, ['7001']);
    await handle.waitForIdle();
  });
  const consoleUrl = () => `${stack.urls.intake}/__local/console/`;

  it('lists an open plain return with its store, terminal, time, member, amount and products', async () => {
    const res = await fetch(`${consoleUrl()}api/returns?status=open`);
    const { returns } = (await res.json()) as { returns: Record<string, unknown>[] };
    expect(returns).toEqual([
      {
        source: 'smaregi',
        returnId: '7001',
        at: '2026-11-30T11:00:00+09:00',
        store: '4',
        terminal: '1',
        member: 'smaregi:C-0001',
        amount: '10000',
        lines: 'C-7001×1',
        status: 'open',
        settled: null,
      },
    ]);
  });

  it('shows the open return in the page’s till returns table', async () => {
    const browser = await puppeteer.launch({ executablePath: findBrowser(), headless: true, args: ['--no-sandbox', '--headless'] });
    try {
      const page = await browser.newPage();
      await page.goto(consoleUrl());
      await page.waitForFunction(() => document.querySelector('#returns tbody')?.textContent?.includes('7001') ?? false, {
        timeout: 15_000,
      });
      const text = await page.evaluate(() => document.querySelector('#returns tbody')?.textContent ?? '');
      expect([text.includes('smaregi:C-0001'), text.includes('¥10000'), text.includes('open')]).toEqual([true, true, true]);
    } finally {
      await browser.close();
    }
  });
});
