import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../../../shared/customers/index.js';

describe('text shown on an App Proxy page (rendered as Liquid in the shop theme)', () => {
  it('is Liquid-inert: braces are escaped, so {{ customer.email }} from a sender never runs', () => {
    const shown = escapeHtml('{{ customer.email }} {% render "x" %}');
    expect(shown).not.toMatch(/[{}]/);
    expect(shown).toBe('&#123;&#123; customer.email &#125;&#125; &#123;% render &#34;x&#34; %&#125;');
  });
});
