import { existsSync, readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { REDEMPTION_ADMIN_ENV } from '../../../shared/redemption/index.js';
import { SENDER_KINDS, SENDER_OPS } from '../../../shared/sources/ops.entry.js';
import {
  LOCAL_STAND_INS,
  STAND_IN_KEYS,
  type StartedStandIns,
  standInEnvironment,
  standInsDelivered,
} from '../../../stand-ins/registry.js';

const root = new URL('../../../', import.meta.url);
const camel = (name: string) => name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

describe("the senders' stand-ins registry", () => {
  it("runs, in SENDER_KINDS' order, the stand-in of every sender whose ops name a stand-in folder, standing in for that sender", () => {
    const expected = SENDER_KINDS.flatMap((kind) => {
      const name = SENDER_OPS[kind].standIn;
      return existsSync(new URL(`stand-ins/${name}/local.ts`, root)) ? [{ key: camel(name), kind, name }] : [];
    });
    const registered = STAND_IN_KEYS.map((key) => ({ key, kind: LOCAL_STAND_INS[key].kind, name: LOCAL_STAND_INS[key].name }));
    expect(registered).toEqual(expected);
  });

  it("sets each stand-in's port under npm start by a variable of its own, listed in docs/local.md's settings", () => {
    const documented = new Set([...readFileSync(new URL('docs/local.md', root), 'utf8').matchAll(/^\| `([A-Z_]+)`/gm)].map((m) => m[1]));
    const ports = STAND_IN_KEYS.map((key) => LOCAL_STAND_INS[key].port);
    expect({
      undocumented: ports.filter((p) => !documented.has(p.variable)).map((p) => p.variable),
      distinctVariables: new Set(ports.map((p) => p.variable)).size,
      distinctDefaults: new Set(ports.map((p) => p.default)).size,
    }).toEqual({ undocumented: [], distinctVariables: ports.length, distinctDefaults: ports.length });
  });

  it("gives each stand-in the environment with the entries before it, so the caller's own settings win", () => {
    const started = {
      shopifyAdmin: { url: 'http://127.0.0.1:1' },
      squareOrders: { url: 'http://127.0.0.1:2' },
      smaregi: {
        url: 'http://127.0.0.1:3',
        standIn: { url: 'http://127.0.0.1:3' },
        contractId: 'c',
        webhookHeader: 'x-h',
        webhookSecret: 's'.repeat(32),
        settings: {},
      },
    } as unknown as StartedStandIns;
    const env = standInEnvironment(started, { SQUARE_ORDERS: 'the caller’s', SOURCES_CONFIG: '{"smaregi":false}' }, 'SOURCES_CONFIG');
    expect([
      env.SQUARE_ORDERS,
      JSON.parse(env[REDEMPTION_ADMIN_ENV] ?? '{}').origin,
      JSON.parse(env.SMAREGI ?? '{}').smaregi.apiOrigin,
      env.SOURCES_CONFIG,
      // A source the caller disabled stays as the caller set it: the stand-in gives no SOURCES_CONFIG.
    ]).toEqual(['the caller’s', 'http://127.0.0.1:1', 'http://127.0.0.1:3', undefined]);
  });

  it('reports a stand-in that cannot take an accepted delivery by its name, and still answers', () => {
    const failing = {
      putOrder: () => {
        throw new Error('store is full');
      },
    };
    const started = {
      shopifyAdmin: { url: 'http://127.0.0.1:1', store: failing },
      squareOrders: {},
      smaregi: {},
    } as unknown as StartedStandIns;
    const event = {
      headers: { 'X-Shopify-Topic': 'orders/paid' },
      body: '{}',
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEventV2;
    const lines: string[] = [];
    standInsDelivered(started, event, { statusCode: 202 }, (line) => lines.push(line));
    expect(lines).toEqual(['[shopify-admin] could not store an accepted delivery: store is full']);
  });
});
