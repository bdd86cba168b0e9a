import { describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../../../shared/sources/json.js';

const parse = (text: string | Buffer) => parseJsonBody(Buffer.isBuffer(text) ? text : Buffer.from(text));

describe('parseJsonBody', () => {
  it('keeps integers beyond 2^53 as their exact digits and safe numbers as numbers', () => {
    expect(parse('{"id": 820982911946154508, "n": 2, "p": 0.08, "neg": -9223372036854775808}')).toEqual({
      ok: true,
      value: { id: '820982911946154508', n: 2, p: 0.08, neg: '-9223372036854775808' },
    });
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(parse(Buffer.from([0x7b, 0xff, 0x7d]))).toMatchObject({
      ok: false,
      error: { kind: 'malformed_json', message: 'body is not valid UTF-8' },
    });
  });

  it('refuses duplicate keys with different values, naming the key (which value would be meant?)', () => {
    expect(parse('{"id": 1, "id": 2}')).toEqual({
      ok: false,
      error: { kind: 'malformed_json', message: 'duplicate key "id" at position 11' },
    });
  });

  it('shows at most 64 characters of a duplicated key', () => {
    const key = 'k'.repeat(500);
    const result = parse(`{"${key}": 1, "${key}": 2}`);
    expect(result).toMatchObject({ ok: false, error: { message: `duplicate key "${'k'.repeat(64)}"… at position 509` } });
  });

  it('says where JSON breaks, without repeating the body', () => {
    const result = parse('{"card": "8000123412345678",}');
    expect(result).toMatchObject({ ok: false, error: { kind: 'malformed_json' } });
    expect(JSON.stringify(result)).not.toContain('8000');
  });

  it('refuses an empty body', () => {
    expect(parse('')).toMatchObject({ ok: false, error: { kind: 'malformed_json' } });
  });
});
