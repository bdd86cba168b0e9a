import { describe, expect, it } from 'vitest';
import { encodePathParam, pathParamProblem } from '../../../../shared/openapi/paths.js';
import { OpenApiError } from '../../../../shared/openapi/errors.js';

describe('path parameters', () => {
  it('accepts an external key of letters, digits, _ and - up to 64 characters', () => {
    expect(pathParamProblem('externalKey', 'pos_card-2')).toBeUndefined();
    expect(pathParamProblem('externalKey', 'k'.repeat(65))).toMatch(/at most 64/);
  });

  it('refuses an external key with a dot', () => {
    expect(pathParamProblem('externalKey', 'shop.ify')).toMatch(/only letters/);
  });

  it('accepts an external ID with the spec symbols * - . _', () => {
    expect(pathParamProblem('externalId', 'A*b-c.d_9')).toBeUndefined();
  });

  it('refuses an external ID longer than 255 characters', () => {
    expect(pathParamProblem('externalId', 'x'.repeat(256))).toMatch(/at most 255/);
  });

  it.each(['..', '.'])('refuses the dot segment %j even where dots are allowed', (v) => {
    expect(pathParamProblem('externalId', v)).toMatch(/dot segment/);
  });

  it.each([
    ['a slash', 'abc/def'],
    ['a backslash', 'abc\\def'],
    ['a parent reference', 'abc..def'],
    ['an encoded slash', 'abc%2Fdef'],
    ['a space', 'abc def'],
    ['a newline', 'abc\ndef'],
    ['a NUL', 'abc\u0000'],
    ['a zero-width character', 'abc\u200bdef'],
  ])('refuses a customer id with %s', (_what, v) => {
    expect(pathParamProblem('customerId', v)).toBeDefined();
  });

  it('refuses an empty customer id', () => {
    expect(pathParamProblem('customerId', '')).toMatch(/empty/);
  });

  it('refuses a value that is not a string', () => {
    expect(pathParamProblem('token', 42)).toMatch(/string/);
  });

  it('percent-encodes accepted characters that are special in URLs', () => {
    expect(encodePathParam('id', 'customerId', 'a?b#c&d', 'GET /x')).toBe('a%3Fb%23c%26d');
  });

  it('refuses with an invalid_request error that says nothing was executed', () => {
    const err = (() => {
      try {
        encodePathParam('id', 'customerId', '../admin', 'GET /api/ext/users/{id}');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(OpenApiError);
    expect(err).toMatchObject({ kind: 'invalid_request', executed: 'no', messages: ['id must not contain a slash'] });
  });
});
