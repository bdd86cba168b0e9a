import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { METRIC } from '../../../../shared/metrics/index.js';
import { SENDER_OPS } from '../../../../shared/sources/ops.entry.js';
import { KINDS } from '../../../../shared/sources/registry.js';
import { SENDER_RESOLUTIONS } from '../../../../shared/sources/resolution.entry.js';

/**
 * What shared/sources/README.md's checklist asks of every sender kind and the compiler cannot check:
 * read from the registrations themselves, so a kind added without its ops needs, its runbook sections,
 * its stand-in, its README section or its resolution fails here.
 */
const root = new URL('../../../../', import.meta.url);
const text = (path: string) => readFileSync(new URL(path, root), 'utf8');
const headings = (markdown: string) =>
  new Set([...markdown.matchAll(/^#{2,3} (.+)$/gm)].map((m) => (m[1] ?? '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').trim()));
const RUNBOOK = headings(text('docs/runbook.md'));
const README = headings(text('shared/sources/README.md'));
const METRICS = new Set<string>(Object.values(METRIC));
const kinds = Object.keys(KINDS) as (keyof typeof KINDS)[];

describe('the sender registrations', () => {
  it('key every registered source by its own kind', () => {
    expect(kinds.filter((kind) => KINDS[kind].kind !== kind)).toEqual([]);
  });

  it.each(kinds)('give %s its runbook sections, a stand-in name and a section in shared/sources/README.md', (kind) => {
    const ops = SENDER_OPS[kind];
    expect({
      runbook: ops.runbook.length > 0,
      missingSections: [...ops.runbook, ...ops.alarms.map((a) => a.id)].filter((id) => !RUNBOOK.has(id)),
      standIn: ops.standIn.trim().length > 0,
      readme: README.has(ops.readme),
    }).toEqual({ runbook: true, missingSections: [], standIn: true, readme: true });
  });

  it.each(kinds)("draw and alarm on metrics %s's worker publishes (shared/metrics/names.ts)", (kind) => {
    const { alarms, dashboard } = SENDER_OPS[kind];
    expect([...alarms, ...dashboard].map((a) => a.metric).filter((m) => !METRICS.has(m))).toEqual([]);
  });

  it('give every sender whose events carry a part of their own its resolution in the worker, and no other', () => {
    const parts = kinds.flatMap((kind) => {
      const part = (KINDS[kind] as { thinPart?: { key: string; kind: string } }).thinPart;
      return part ? [`${kind}.${part.key}:${part.kind}`] : [];
    });
    expect(SENDER_RESOLUTIONS.map((r) => `${r.sender}.${r.key}:${r.kind}`).sort()).toEqual(parts.sort());
  });

  it('alarm on the API errors metric of every resolution that counts its failed calls', () => {
    const unalarmed = SENDER_RESOLUTIONS.filter(
      (r) =>
        r.apiErrorsMetric !== undefined && !SENDER_OPS[r.sender as keyof typeof KINDS].alarms.some((a) => a.metric === r.apiErrorsMetric),
    );
    expect(unalarmed.map((r) => r.sender)).toEqual([]);
  });
});

describe('shared/points', () => {
  const files = readdirSync(new URL('shared/points/', root)).filter((f) => f.endsWith('.ts'));

  it('names no sender kind and imports nothing of shared/sources: it sees canonical events only', () => {
    const named = new RegExp(`\\b(${kinds.join('|')})\\b|sources/`, 'i');
    expect(files.filter((f) => named.test(text(`shared/points/${f}`)))).toEqual([]);
  });
});
