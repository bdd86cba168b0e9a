import { describe, expect, it } from 'vitest';
import { classifyAnswer, classifySuccess, classifyTransportError, flattenMessages } from '../../../../shared/openapi/classify.js';
import { MESSAGES } from '../../../../shared/openapi/messages.js';
import { StaleSocketError } from '../../../../shared/http-client/index.js';

const grant = { route: 'POST /api/ext/users/{id}/points' };
const body = (o: unknown) => JSON.stringify(o);

describe('flattenMessages', () => {
  it('accepts errors as a string, an array or an object keyed by field', () => {
    expect(flattenMessages('a')).toEqual(['a']);
    expect(flattenMessages(['a', 'b'])).toEqual(['a', 'b']);
    expect(flattenMessages({ point: ['a'], amount: 'b' })).toEqual(['a', 'b']);
  });
});

describe('classifyAnswer', () => {
  it('reads insufficient points from the object-shaped errors', () => {
    const e = classifyAnswer(grant, 400, {}, body({ status: false, errors: { point: [MESSAGES.insufficientPoints] } }));
    expect(e).toMatchObject({ kind: 'insufficient_points', status: 400, executed: 'no', messages: [MESSAGES.insufficientPoints] });
  });

  it('reads member not found given as a string or as an array', () => {
    expect(classifyAnswer(grant, 400, {}, body({ status: false, errors: MESSAGES.memberNotFound })).kind).toBe('member_not_found');
    expect(classifyAnswer(grant, 400, {}, body({ status: false, errors: [MESSAGES.memberNotFound] })).kind).toBe('member_not_found');
  });

  it.each([
    [MESSAGES.notContracted, 'not_contracted'],
    [MESSAGES.externalIdNotFound, 'external_id_not_found'],
    [MESSAGES.notAvailableForPoints, 'points_not_available'],
    [MESSAGES.handoverTokenExpired, 'handover_token_expired'],
    [MESSAGES.handoverTokenInvalid, 'handover_token_invalid'],
  ])('classifies %j as %s', (text, kind) => {
    expect(classifyAnswer(grant, 400, {}, body({ status: false, errors: text })).kind).toBe(kind);
  });

  it('treats any other 400 as a validation error and keeps the raw messages', () => {
    const e = classifyAnswer(grant, 400, {}, body({ status: false, errors: [MESSAGES.pointInteger] }));
    expect(e).toMatchObject({ kind: 'validation', messages: [MESSAGES.pointInteger], executed: 'no' });
  });

  it('recognises insufficient points by its shape, {point: [message]}, whatever the message says', () => {
    const e = classifyAnswer(grant, 400, {}, body({ status: false, errors: { point: ['保有ポイントが不足しています。'] } }));
    expect(e).toMatchObject({ kind: 'insufficient_points', executed: 'no', messages: ['保有ポイントが不足しています。'] });
  });

  it('reads a 400 whose text the spec does not fix as validation, never by its wording', () => {
    const e = classifyAnswer(grant, 400, {}, body({ status: false, errors: ['The point exceeds the points held, reworded.'] }));
    expect(e.kind).toBe('validation');
  });

  it.each([403, 409, 422])('calls a %i, which the spec never gives, unrecognised', (status) => {
    expect(classifyAnswer(grant, status, {}, body({ status: false, errors: 'Forbidden' }))).toMatchObject({
      kind: 'unrecognised',
      executed: 'no',
    });
  });

  it('calls a 403 unrecognised even when its body carries a text the spec fixes', () => {
    expect(classifyAnswer(grant, 403, {}, body({ status: false, errors: MESSAGES.memberNotFound })).kind).toBe('unrecognised');
  });

  it('calls a 429 rate_limited, not executed, with its Retry-After in seconds', () => {
    expect(classifyAnswer(grant, 429, { 'retry-after': '30' }, '')).toMatchObject({
      kind: 'rate_limited',
      executed: 'no',
      retryAfterMs: 30_000,
    });
  });

  it('reads a Retry-After HTTP date against the clock, a past date as no wait', () => {
    const now = Date.parse('2026-01-15T01:00:00Z');
    expect(classifyAnswer(grant, 429, { 'retry-after': 'Thu, 15 Jan 2026 01:02:00 GMT' }, '', now).retryAfterMs).toBe(120_000);
    expect(classifyAnswer(grant, 429, { 'retry-after': 'Thu, 15 Jan 2026 00:59:00 GMT' }, '', now).retryAfterMs).toBe(0);
  });

  it('leaves a 429 without a readable Retry-After without one, and caps a huge one at an hour', () => {
    expect(classifyAnswer(grant, 429, { 'retry-after': 'soon' }, '').retryAfterMs).toBeUndefined();
    expect(classifyAnswer(grant, 429, {}, '').retryAfterMs).toBeUndefined();
    expect(classifyAnswer(grant, 429, { 'retry-after': '999999' }, '').retryAfterMs).toBe(3_600_000);
  });

  it('calls a 2xx HTML page a server error that may have run', () => {
    expect(classifySuccess(grant, 200, '\n<!DOCTYPE html><html></html>')).toMatchObject({
      kind: 'server',
      status: 200,
      executed: 'unknown',
    });
    expect(classifySuccess(grant, 200, '{"status":true}')).toBeUndefined();
  });

  it('calls a 5xx HTML page a server error', () => {
    expect(classifyAnswer(grant, 503, { 'content-type': 'text/html' }, '<html>maintenance</html>')).toMatchObject({
      kind: 'server',
      executed: 'unknown',
    });
  });

  it('reads the structured invalid-token answer sent as text/html', () => {
    const e = classifyAnswer(
      grant,
      401,
      { 'www-authenticate': 'Bearer error="invalid_token"', 'content-type': 'text/html; charset=UTF-8' },
      body({
        status: false,
        errors: [MESSAGES.authenticationFailed],
        all_errors: [MESSAGES.authenticationFailed],
        error_code: 'API-OPENAPI16',
      }),
    );
    expect(e).toMatchObject({ kind: 'invalid_token', status: 401, errorCode: 'API-OPENAPI16', executed: 'no' });
  });

  it('calls a refusal at the token endpoint an authentication failure', () => {
    const e = classifyAnswer(
      { route: 'POST /api/ext/token', tokenEndpoint: true },
      401,
      {},
      body({ status: false, errors: ['x'], error_code: 'API-OPENAPI16' }),
    );
    expect(e.kind).toBe('authentication_failed');
  });

  it('reads "Not contracted" from the token endpoint as not_contracted, not as bad credentials', () => {
    const e = classifyAnswer(
      { route: 'POST /api/ext/token', tokenEndpoint: true },
      400,
      {},
      body({ status: false, errors: MESSAGES.notContracted }),
    );
    expect(e.kind).toBe('not_contracted');
  });

  it('marks a 500 as possibly executed', () => {
    const e = classifyAnswer(grant, 500, {}, body({ status: false, errors: MESSAGES.internalServerError, error_code: 'API-OPENAPI21' }));
    expect(e).toMatchObject({ kind: 'server', executed: 'unknown', errorCode: 'API-OPENAPI21' });
  });

  it('reads 405 as method not allowed', () => {
    expect(classifyAnswer(grant, 405, {}, body({ status: false, errors: MESSAGES.methodNotAllowed })).kind).toBe('method_not_allowed');
  });

  it('reads the external-ID delete 404 as member not found, other 404s as not found', () => {
    const answer = body({ status: false, errors: MESSAGES.pageNotFound, error_code: 'API-OPENAPI08' });
    expect(classifyAnswer({ route: 'DELETE x', notFoundMeansMember: true }, 404, {}, answer).kind).toBe('member_not_found');
    expect(classifyAnswer(grant, 404, {}, answer).kind).toBe('not_found');
  });

  it('copes with a body that is not JSON', () => {
    expect(classifyAnswer(grant, 502, {}, '<html>bad gateway</html>')).toMatchObject({ kind: 'server', messages: [] });
  });
});

describe('classifyTransportError', () => {
  const withCode = (code: string) => Object.assign(new Error(code), { code });

  it('says a refused connection was not executed', () => {
    expect(classifyTransportError(grant, withCode('ECONNREFUSED'))).toMatchObject({ kind: 'network', executed: 'no' });
  });

  it('says a connect timeout was not executed', () => {
    expect(classifyTransportError(grant, withCode('CONNECT_TIMEOUT'))).toMatchObject({ kind: 'timeout', executed: 'no' });
  });

  it('says a reset after sending may have been executed', () => {
    expect(classifyTransportError(grant, withCode('ECONNRESET'))).toMatchObject({ kind: 'network', executed: 'unknown' });
  });

  it('says a kept-alive socket the server closed before any byte of the request was written was not executed', () => {
    expect(classifyTransportError(grant, new StaleSocketError())).toMatchObject({ kind: 'network', executed: 'no' });
  });

  it('says a headers timeout may have been executed', () => {
    expect(classifyTransportError(grant, withCode('HEADERS_TIMEOUT'))).toMatchObject({ kind: 'timeout', executed: 'unknown' });
  });
});
