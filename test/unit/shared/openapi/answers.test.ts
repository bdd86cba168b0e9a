import { describe, expect, it } from 'vitest';
import { parseBody } from '../../../../shared/openapi/answers.js';
import { Answers, MemberDetail, MemberEnvelope } from '../../../../shared/openapi/schemas.js';

const route = 'GET /api/ext/users/{id}';
const member = {
  id: 'm-1',
  point: 5,
  total_point: 9,
  logined: 0,
  enabled: 1,
  created_at: '2026-01-15 10:00:00',
  updated_at: '2026-01-15 10:00:00',
};

describe('parseBody', () => {
  it('keeps fields the schema does not know (the spec says internal fields change)', () => {
    const m = parseBody(MemberDetail, { status: 200, text: JSON.stringify({ ...member, cms_token: 'x', column07: 'v' }) }, route);
    expect(m).toMatchObject({ cms_token: 'x', column07: 'v' });
  });

  it('reads an empty external-ID map sent as [] as {}', () => {
    expect(parseBody(MemberDetail, { status: 200, text: JSON.stringify({ ...member, external_ids: [] }) }, route).external_ids).toEqual({});
  });

  it('accepts a member without the point_* fields (client without the point feature)', () => {
    expect(parseBody(MemberDetail, { status: 200, text: JSON.stringify(member) }, route)).not.toHaveProperty('point_expired_point');
  });

  it('reports a wrong shape as invalid_response that may have been executed, naming the field', () => {
    const run = () => parseBody(MemberDetail, { status: 200, text: JSON.stringify({ ...member, point: '5' }) }, route);
    expect(run).toThrow(expect.objectContaining({ kind: 'invalid_response', executed: 'unknown', status: 200 }));
    expect(run).toThrow(/point:/);
  });

  it('reports a body that is not JSON as invalid_response', () => {
    expect(() => parseBody(MemberDetail, { status: 200, text: '<html>' }, route)).toThrow(
      expect.objectContaining({ kind: 'invalid_response', messages: ['answer is not JSON'] }),
    );
  });
});

// The client validates answers with compiled schemas (z.compile): they must read answers exactly as
// the schemas they come from.
describe('compiled answer schemas', () => {
  const answer = (m: unknown) => ({ status: 200, text: JSON.stringify({ member: m }) });

  it('keep fields the member schema does not know', () => {
    const m = parseBody(Answers.member(), answer({ ...member, cms_token: 'x', column07: 'v', external_ids: [] }), route).member;
    expect(m).toMatchObject({ cms_token: 'x', column07: 'v', external_ids: {} });
  });

  it('refuse a wrong shape with the same messages as the runtime schema', () => {
    const bad = answer({ ...member, point: '5', created_at: 7 });
    const messages = (schema: typeof MemberEnvelope) => {
      try {
        parseBody(schema, bad, route);
      } catch (e) {
        return (e as { messages: string[] }).messages;
      }
      return [];
    };
    expect(messages(Answers.member())).toEqual(messages(MemberEnvelope));
    expect(messages(Answers.member())).toEqual(expect.arrayContaining([expect.stringMatching(/^member\.point:/)]));
  });
});
