import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findBrowser } from '../../support/browser.js';

describe('finding the browser for the console test', () => {
  let dir: string;
  const install = (sub: string, name: string) => {
    const path = join(dir, sub, name);
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, 0o755);
    return path;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'browser-'));
    for (const sub of ['a', 'b']) mkdirSync(join(dir, sub));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const path = (...subs: string[]) => subs.map((s) => join(dir, s)).join(delimiter);

  it('takes CHROMIUM_PATH first', () => {
    const given = install('a', 'my-chrome');
    install('b', 'chromium');
    expect(findBrowser({ CHROMIUM_PATH: given, PATH: path('b') })).toBe(given);
  });

  it('refuses a CHROMIUM_PATH that is not an executable, naming it', () => {
    expect(() => findBrowser({ CHROMIUM_PATH: join(dir, 'nothing'), PATH: '' })).toThrow(/CHROMIUM_PATH=.*nothing is not an executable/);
  });

  it.each(['chromium', 'chromium-browser', 'google-chrome'])('finds %s on PATH', (name) => {
    const found = install('b', name);
    expect(findBrowser({ PATH: path('a', 'b') })).toBe(found);
  });

  it('prefers chromium over google-chrome whatever the PATH order', () => {
    install('a', 'google-chrome');
    const chromium = install('b', 'chromium');
    expect(findBrowser({ PATH: path('a', 'b') })).toBe(chromium);
  });

  it('says what it looked for when there is none', () => {
    expect(() => findBrowser({ PATH: path('a') })).toThrow(/set CHROMIUM_PATH, or put one of chromium, chromium-browser, google-chrome/);
  });
});
