import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importProblems } from '../../../tools/check-imports.js';

/** `npm run lint`'s import rules, run on a small made-up repository written to a temporary folder. */
let root: string | undefined;

async function repo(files: Record<string, string>): Promise<string> {
  root = await mkdtemp(join(tmpdir(), 'check-imports-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

async function problems(files: Record<string, string>): Promise<string[]> {
  return importProblems(await repo(files), Object.keys(files));
}

afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

describe('npm run lint import rules', () => {
  it('pass a repository whose imports go one way, through module indexes', async () => {
    expect(
      await problems({
        'shared/a/index.ts': "export { a } from './a.js';\n",
        'shared/a/a.ts': "import { b } from '../b/index.js';\nexport const a = b;\n",
        'shared/b/index.ts': 'export const b = 1;\n',
        'functions/f.ts': "import { a } from '../shared/a/index.js';\n",
      }),
    ).toEqual([]);
  });

  it('report a cycle between two files', async () => {
    expect(
      await problems({
        'local/run.ts': "import { step } from './steps.js';\nexport const run = step;\n",
        'local/steps.ts': "import { run } from './run.js';\nexport const step = run;\n",
      }),
    ).toEqual(['file cycle: local/run.ts ↔ local/steps.ts']);
  });

  it('count a type-only import in a cycle', async () => {
    expect(
      await problems({
        'local/run.ts': "import { step } from './steps.js';\nexport type Target = { a: 1 };\nexport const run = step;\n",
        'local/steps.ts': "import type { Target } from './run.js';\nexport const step = (t: Target) => t;\n",
      }),
    ).toEqual(['file cycle: local/run.ts ↔ local/steps.ts']);
  });

  it('count a dynamic import in a cycle', async () => {
    expect(
      await problems({
        'local/a.ts': "export const load = () => import('./b.js');\n",
        'local/b.ts': "import { load } from './a.js';\nexport const b = load;\n",
      }),
    ).toEqual(['file cycle: local/a.ts ↔ local/b.ts']);
  });

  it('report a cycle between shared modules even when no two files form one', async () => {
    expect(
      await problems({
        'shared/a/index.ts': "export { a } from './a.js';\n",
        'shared/a/a.ts': "import { b } from '../b/index.js';\nexport const a = b;\n",
        'shared/a/late.ts': 'export const late = 1;\n',
        'shared/b/index.ts': "export { b } from './b.js';\n",
        'shared/b/b.ts': "import type { late } from '../a/index.js';\nexport const b = 1 as unknown as typeof late;\n",
      }).then((found) => found.filter((p) => p.startsWith('shared/ module cycle'))),
    ).toEqual(['shared/ module cycle: shared/a ↔ shared/b']);
  });

  it('report an import that skips a module index, and accept a light *.entry.ts file', async () => {
    expect(
      await problems({
        'shared/a/index.ts': "export { a } from './a.js';\n",
        'shared/a/a.ts': 'export const a = 1;\n',
        'shared/a/small.entry.ts': "export { a } from './a.js';\n",
        'functions/f.ts': "import { a } from '../shared/a/a.js';\nimport { a as b } from '../shared/a/small.entry.js';\n",
      }),
    ).toEqual(['deep import: functions/f.ts → shared/a/a.ts (import shared/a/index.ts or a *.entry.ts)']);
  });

  it("accept a sender kind's folder index under shared/sources, and report a file inside it", async () => {
    expect(
      await problems({
        'shared/sources/index.ts': 'export const s = 1;\n',
        'shared/sources/acme/index.ts': "export { c } from './client.js';\n",
        'shared/sources/acme/client.ts': 'export const c = 1;\n',
        'ops/o.ts': "import { c } from '../shared/sources/acme/index.js';\nimport { c as d } from '../shared/sources/acme/client.js';\n",
      }),
    ).toEqual(['deep import: ops/o.ts → shared/sources/acme/client.ts (import shared/sources/index.ts or a *.entry.ts)']);
  });

  it('ignore an import written in a comment', async () => {
    expect(
      await problems({
        'local/a.ts': "// import { b } from './b.js';\nexport const a = 1;\n",
        'local/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
      }),
    ).toEqual([]);
  });

  it('report a cycle between top-level folders even when no two files form one', async () => {
    expect(
      await problems({
        'ops/report.ts': "import { connect } from '../local/connect.js';\nexport const report = connect;\n",
        'local/connect.ts': 'export const connect = 1;\n',
        'local/stack.ts': "import { page } from '../console/page.js';\nexport const stack = page;\n",
        'console/page.ts': "import { report } from '../ops/report.js';\nexport const page = report;\n",
      }),
    ).toEqual(['folder cycle: console ↔ local ↔ ops (see docs/house.md)']);
  });

  it('report an import of test/ from outside it, and let tests import each other', async () => {
    expect(
      await problems({
        'test/support/clock.ts': 'export const clock = 1;\n',
        'test/unit/a.test.ts': "import { clock } from '../support/clock.js';\nexport const a = clock;\n",
        'bench/run.ts': "import { clock } from '../test/support/clock.js';\nexport const run = clock;\n",
      }),
    ).toEqual(['import of test/: bench/run.ts → test/support/clock.ts (move what it needs out of test/, e.g. to kit/)']);
  });

  it('report a points call sent outside the protocol engine', async () => {
    expect(
      await problems({
        'shared/points/engine/act.ts': 'export const send = (api: any) => api.grantPoints("m", {});\n',
        'shared/redemption/deduct.ts': 'export const deduct = (api: any) => api.grantPoints("m", { point: -1 });\n',
        'test/x.test.ts': 'export const t = (api: any) => api.calculatePoints("m", {});\n',
      }),
    ).toEqual([
      'points call outside the protocol engine: shared/redemption/deduct.ts (send it through shared/points/engine: runOperation or act)',
    ]);
  });
});
