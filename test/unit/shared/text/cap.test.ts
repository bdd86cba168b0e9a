import { describe, expect, it } from 'vitest';
import { capText } from '../../../../shared/text/index.js';

describe('capText', () => {
  it('keeps a text within the limit as it is', () => {
    expect(capText('short', 10)).toBe('short');
  });

  it('cuts a longer text to the limit and says how many characters were cut', () => {
    const out = capText('a'.repeat(5000), 100);
    expect(out.length).toBeLessThanOrEqual(100);
    expect(out).toMatch(/^a+… \(\d+ characters cut\)$/);
    expect(Number(/\((\d+)/.exec(out)?.[1]) + out.indexOf('…')).toBe(5000);
  });

  it('never ends on half a surrogate pair', () => {
    const out = capText('😀'.repeat(3000), 101);
    expect(out.slice(0, out.indexOf('…'))).toMatch(/^(😀)+$/u);
  });
});
