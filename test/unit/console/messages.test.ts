import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The console's words: one table per language (console/static/messages.<lang>.json). Every key the page,
 * its script and the console's API use is in both tables, translated, with the same values to fill in;
 * nothing on the page is written outside them.
 */

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
const table = (lang: string) => JSON.parse(read(`console/static/messages.${lang}.json`)) as Record<string, string>;
const ja = table('ja');
const en = table('en');
const html = read('console/static/index.html');
const script = read('console/static/console.js');
// The API's messages: the console's own modules and the local stack's source (its `where.local` label).
const servers = [
  ...readdirSync(new URL('../../../console/', import.meta.url))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `console/${f}`),
  'local/console-source.ts',
].map(read);

// Hiragana, katakana, CJK ideographs, the ideographic marks.
const JAPANESE = /[\u3000-\u303f\u3040-\u30ff\u4e00-\u9fff]/;
// The switch names the other language in that language's own words (日本語 on the English page, English on the Japanese).
const NAMES_THE_OTHER_LANGUAGE = new Set(['lang.switch']);
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** Every key written in the page (data-i18n, data-i18n-placeholder) and in the code (the first argument of t, say, message; the backlog's words). */
function keysUsed(): Set<string> {
  const used = new Set<string>();
  for (const m of html.matchAll(/data-i18n(?:-placeholder)?="([^"]+)"/g)) used.add(m[1]!);
  for (const source of [script, ...servers]) {
    for (const call of source.matchAll(/\b(?:t|say|message)\(([^,)]*)/g)) {
      for (const literal of call[1]!.matchAll(/'([^']+)'/g)) used.add(literal[1]!);
    }
  }
  const backlog = /const BACKLOG_WORDS = \{([^}]*)\}/.exec(script)?.[1] ?? '';
  for (const m of backlog.matchAll(/: '([^']+)'/g)) used.add(m[1]!);
  return used;
}

describe("the console's message tables", () => {
  it('hold the same keys in Japanese and English', () => {
    expect(Object.keys(ja).sort()).toEqual(Object.keys(en).sort());
  });

  it('leave no key untranslated: every Japanese message is in Japanese and differs from the English one', () => {
    const untranslated = Object.keys(en).filter(
      (k) => !NAMES_THE_OTHER_LANGUAGE.has(k) && (!ja[k] || ja[k] === en[k] || !JAPANESE.test(ja[k]!)),
    );
    expect(untranslated).toEqual([]);
  });

  it('have no Japanese left in the English table', () => {
    expect(Object.keys(en).filter((k) => !NAMES_THE_OTHER_LANGUAGE.has(k) && (!en[k] || JAPANESE.test(en[k]!)))).toEqual([]);
  });

  it('fill in the same values in both languages', () => {
    const differ = Object.keys(en).filter((k) => placeholders(en[k]!).join() !== placeholders(ja[k] ?? '').join());
    expect(differ).toEqual([]);
  });

  it('hold every key the page, its script and the API use', () => {
    expect([...keysUsed()].filter((k) => !(k in en)).sort()).toEqual([]);
  });

  it('hold no key that nothing uses', () => {
    const used = keysUsed();
    expect(Object.keys(en).filter((k) => !used.has(k))).toEqual([]);
  });
});

describe("the console's page", () => {
  it('writes no visible text outside the tables: each text is a key, written as the Japanese default', () => {
    const body = html.replace(/<!--[\s\S]*?-->/g, '').replace(/<(script|style)\b[\s\S]*?<\/\1>/g, '');
    const keyed = [...body.matchAll(/<(\w+)\b[^>]*\bdata-i18n="([^"]+)"[^>]*>([^<]*)<\/\1>/g)];
    expect(keyed.filter(([, , key, text]) => text !== ja[key!]).map(([, , key]) => key)).toEqual([]);
    const rest = keyed.reduce((text, [whole]) => text.replace(whole, ''), body).replace(/<[^>]*>/g, '');
    expect(rest.trim()).toBe('');
  });

  it('gives every placeholder through its key', () => {
    const inputs = [...html.matchAll(/<input\b[^>]*>/g)].map(([tag]) => tag).filter((tag) => tag.includes('placeholder='));
    for (const tag of inputs) {
      const key = /data-i18n-placeholder="([^"]+)"/.exec(tag)?.[1];
      expect(key, tag).toBeDefined();
      expect(tag).toContain(`placeholder="${ja[key!]}"`);
    }
  });
});
