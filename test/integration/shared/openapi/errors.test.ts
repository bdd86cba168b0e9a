import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../../../shared/openapi/messages.js';
import { OpenApiError, createOpenApiClient, staticCredentials, type OpenApiClient } from '../../../../shared/openapi/index.js';
import { ALICE, BOB, UNKNOWN_MEMBER, rejectionOf, useHarness, type Harness } from './emulator-harness.js';

let h: Harness;
let client: OpenApiClient;

useHarness((started) => {
  h = started;
  client = h.client();
});

describe('Open API client, every failure becomes a typed OpenApiError', () => {
  it('reports an unknown customer as member_not_found, not executed', async () => {
    const e = await rejectionOf(client.grantPoints(UNKNOWN_MEMBER, { point: 10 }));
    expect(e).toBeInstanceOf(OpenApiError);
    expect(e).toMatchObject({ kind: 'member_not_found', status: 400, executed: 'no', messages: [MESSAGES.memberNotFound] });
  });

  it('reports an unknown customer in the external-ID delete (404 API-OPENAPI08) as member_not_found', async () => {
    const e = await rejectionOf(client.deleteExternalId(UNKNOWN_MEMBER, 'shopify'));
    expect(e).toMatchObject({ kind: 'member_not_found', status: 404, errorCode: 'API-OPENAPI08', executed: 'no' });
  });

  it('reports a client without a contract as not_contracted', async () => {
    const lapsed = h.client({ clientId: 'lapsed' });
    expect(await rejectionOf(lapsed.getMember(ALICE))).toMatchObject({ kind: 'not_contracted', executed: 'no' });
  });

  it('reports a deduction beyond the held points as insufficient_points', async () => {
    await client.grantPoints(BOB, { point: 100 });
    const e = await rejectionOf(client.grantPoints(BOB, { point: -101 }));
    expect(e).toMatchObject({ kind: 'insufficient_points', status: 400, executed: 'no', messages: [MESSAGES.insufficientPoints] });
  });

  it('reports a client without the point feature as points_not_available', async () => {
    const noPoints = h.client({ clientId: 'nopoints' });
    expect(await rejectionOf(noPoints.calculatePoints(ALICE, { amount: 1000 }))).toMatchObject({
      kind: 'points_not_available',
      executed: 'no',
    });
  });

  it('reports deleting an external id the member does not have as external_id_not_found', async () => {
    expect(await rejectionOf(client.deleteExternalId(BOB, 'pos_card'))).toMatchObject({ kind: 'external_id_not_found', executed: 'no' });
  });

  it('reports a duplicate login id as validation, with the raw message', async () => {
    const e = await rejectionOf(client.registerMember({ login_id: 'alice' }));
    expect(e).toMatchObject({ kind: 'validation', status: 400, executed: 'no', messages: [MESSAGES.loginIdUsed] });
  });

  it('reports an amount over the ceiling as validation', async () => {
    expect(await rejectionOf(client.calculatePoints(BOB, { amount: 1_000_000_000 }))).toMatchObject({ kind: 'validation', executed: 'no' });
  });

  it('reports login refusals as validation with the message kept: the spec fixes no wording that tells them apart', async () => {
    expect(await rejectionOf(client.login({ loginId: 'alice', password: 'nope' }))).toMatchObject({
      kind: 'validation',
      status: 400,
      executed: 'no',
      messages: [MESSAGES.loginFailed],
    });
    await client.updateMember(BOB, { enabled: 0 });
    expect(await rejectionOf(client.login({ loginId: 'bob', password: 'pass1234' }))).toMatchObject({
      kind: 'validation',
      messages: [MESSAGES.accountLocked],
    });
  });

  it('reports an expired handover token as handover_token_expired', async () => {
    const token = await h.handoverToken(ALICE, 60);
    await h.advanceClock(120);
    expect(await rejectionOf(client.checkHandoverToken(token, ALICE))).toMatchObject({ kind: 'handover_token_expired' });
  });

  it('reports a handover token that does not match the member as handover_token_invalid', async () => {
    const token = await h.handoverToken(ALICE);
    expect(await rejectionOf(client.checkHandoverToken(token, BOB))).toMatchObject({ kind: 'handover_token_invalid' });
  });

  it('reports wrong client credentials as authentication_failed, after one re-read of them', async () => {
    let reads = 0;
    const wrong = createOpenApiClient({
      credentials: {
        get: async () => {
          reads++;
          return h.credentials('shop', 'not-the-secret');
        },
      },
    });
    try {
      const e = await rejectionOf(wrong.getMember(ALICE));
      expect(e).toMatchObject({ kind: 'authentication_failed', status: 401, errorCode: 'API-OPENAPI16', executed: 'no' });
      expect(reads).toBe(2);
    } finally {
      await wrong.close();
    }
  });

  it('never shows the client secret in an authentication failure', async () => {
    const wrong = h.client({ secret: 'sUp3r-s3cr3t-value' });
    const e = (await rejectionOf(wrong.getMember(ALICE))) as Error;
    expect(JSON.stringify({ ...e, text: e.message, stack: e.stack })).not.toContain('sUp3r-s3cr3t-value');
  });

  it('reports a base URL with a wrong path prefix as not_found', async () => {
    const lost = createOpenApiClient({ credentials: staticCredentials({ ...h.credentials(), baseUrl: `${h.url}/elsewhere` }) });
    try {
      expect(await rejectionOf(lost.getMember(ALICE))).toMatchObject({ kind: 'not_found', status: 404, executed: 'no' });
    } finally {
      await lost.close();
    }
  });

  it('reports a failing credentials source as credentials_unavailable, not executed', async () => {
    const broken = createOpenApiClient({
      credentials: {
        get: async () => {
          throw new Error('secret store unreachable');
        },
      },
    });
    try {
      expect(await rejectionOf(broken.calculatePoints(BOB, { amount: 1 }))).toMatchObject({
        kind: 'credentials_unavailable',
        executed: 'no',
        messages: ['secret store unreachable'],
      });
    } finally {
      await broken.close();
    }
  });

  it('refuses a non-integer point before sending anything', async () => {
    const e = await rejectionOf(client.grantPoints(BOB, { point: 1.5 }));
    expect(e).toMatchObject({ kind: 'invalid_request', executed: 'no' });
    expect(await h.totalRequests()).toBe(0);
  });

  it('reports a refused access token as invalid_token after exactly one renewal and repeat', async () => {
    // Each token answer is held back; while it is held, the emulator clock jumps a day, so every
    // token arrives already expired and both the request and its one repeat are refused.
    await h.fault({ method: 'POST', path: '^/api/ext/token$', fault: 'delay', delay_ms: 1200, times: 2 });
    const pending = rejectionOf(client.getMember(ALICE));
    for (const issued of [1, 2]) {
      while ((await h.stats()).token_requests < issued) await new Promise((r) => setTimeout(r, 10));
      await h.advanceClock(86_400);
    }
    const e = await pending;
    expect(e).toMatchObject({ kind: 'invalid_token', status: 401, errorCode: 'API-OPENAPI16', executed: 'no' });
    const stats = await h.stats();
    expect(stats.token_requests).toBe(2);
    expect(stats.routes['GET /api/ext/users/{id}']?.total).toBe(2);
  });
});
