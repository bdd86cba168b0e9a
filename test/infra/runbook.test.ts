import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SynthesisedApp, synthesiseRealApp } from './support/app.js';

/**
 * docs/runbook.md has a section for every alarm the stack creates: read from the synthesised
 * templates of every pipeline stage, never from a list kept by hand.
 */
const RUNBOOK = readFileSync(new URL('../../docs/runbook.md', import.meta.url), 'utf8');
const headings = new Set([...RUNBOOK.matchAll(/^### (.+)$/gm)].map((m) => m[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').trim()));

describe('docs/runbook.md', () => {
  let app: SynthesisedApp;
  beforeAll(() => {
    app = synthesiseRealApp();
  }, 120_000);
  afterAll(() => app?.dispose());

  it('has a section, under its id, for every alarm any stage synthesises', () => {
    const ids = new Set<string>();
    for (const [stageName, { stack, template }] of app.stages) {
      const prefix = `loyalty-bridge-${stageName}-`;
      for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
        const name = String((alarm as { Properties: { AlarmName: string } }).Properties.AlarmName);
        expect(name.startsWith(prefix)).toBe(true);
        // A per-source alarm is documented once, as <source>.
        const id = Object.keys(stack.config.sources).reduce(
          (n, source) => n.replace(new RegExp(`-${source}$`), '-<source>'),
          name.slice(prefix.length),
        );
        ids.add(id);
      }
    }
    expect(ids.size).toBeGreaterThan(10);
    expect([...ids].filter((id) => !headings.has(id))).toEqual([]);
  });

  it('says for each alarm what it means, how to confirm it, what to do and when it clears', () => {
    const sections = RUNBOOK.split(/^### /m).slice(1);
    const alarmSections = sections.filter((s) => s.includes('- **Means**'));
    expect(alarmSections.length).toBeGreaterThan(10);
    for (const section of alarmSections) {
      for (const part of ['**Means**', '**Confirm**', '**Do**', '**Clears**']) expect(section, section.split('\n')[0]).toContain(part);
    }
  });
});
