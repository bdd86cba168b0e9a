import { describe, expect, it } from 'vitest';
import { shopifyCommand } from '../../../ops/shopify-command.js';
import { withDemoStack } from '../../support/local-stack.js';
import type { LocalStack } from '../../../local/index.js';

/** `npm run shopify -- subscribe` against `npm start`: the stack's Admin API stand-in and intake URL. */
describe('npm run shopify -- subscribe (local stack)', () => {
  let stack: LocalStack;
  withDemoStack({}, (made) => {
    stack = made.stack;
  });
  const subscribe = async (...extra: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await shopifyCommand(
      ['subscribe', ...extra],
      { PORT: String(new URL(stack.urls.intake).port) },
      {
        print: (l) => out.push(l),
        printError: (l) => err.push(l),
      },
    );
    return { code, out, err };
  };

  it('creates the four order topics at the intake (orders/create: the demo source redeems), then a second run creates nothing', async () => {
    const first = await subscribe();
    expect(first.code).toBe(0);
    expect(first.out.at(-1)).toBe('shopify: topics=4 created=4 existing=0');
    const second = await subscribe();
    expect(second.out.at(-1)).toBe('shopify: topics=4 created=0 existing=4');
    expect(stack.standIns.shopifyAdmin.subscriptions.list().map((s) => `${s.topic} ${s.uri}`)).toEqual([
      `ORDERS_CREATE ${stack.urls.intake}/webhooks/shopify`,
      `ORDERS_PAID ${stack.urls.intake}/webhooks/shopify`,
      `REFUNDS_CREATE ${stack.urls.intake}/webhooks/shopify`,
      `ORDERS_CANCELLED ${stack.urls.intake}/webhooks/shopify`,
    ]);
  });

  it('refuses a source that is not a Shopify source, changing nothing', async () => {
    const before = stack.standIns.shopifyAdmin.subscriptions.list().length;
    const run = await subscribe('--source', 'pos');
    expect(run.code).toBe(2);
    expect(run.err).toEqual(['shopify: source pos is a pos source: only Shopify sources are subscribed here']);
    expect(stack.standIns.shopifyAdmin.subscriptions.list()).toHaveLength(before);
  });
});

describe('npm run shopify -- subscribe (a local stack that enrols customers)', () => {
  let stack: LocalStack;
  withDemoStack({ env: { SHOPIFY_ENROLMENT: 'register' } }, (made) => {
    stack = made.stack;
  });

  it('subscribes customers/create too (beside the four order topics), following the running stack rather than its own environment', async () => {
    const out: string[] = [];
    const code = await shopifyCommand(
      ['subscribe'],
      { PORT: String(new URL(stack.urls.intake).port) },
      { print: (l) => out.push(l), printError: () => undefined },
    );
    expect(code).toBe(0);
    expect(out.at(-1)).toBe('shopify: topics=5 created=5 existing=0');
    expect(stack.standIns.shopifyAdmin.subscriptions.list().map((s) => s.topic)).toContain('CUSTOMERS_CREATE');
  });
});
