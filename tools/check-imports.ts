import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cycles, fileGraph, folderGraph, moduleGraph, sharedModuleOf, topFolderOf } from './import-graph.js';

/**
 * `npm run lint`'s import rules, which Biome cannot express across modules:
 * - no cycle between files, none between shared/ modules and none between top-level folders (type-only
 *   and dynamic imports count): the folders' allowed arrows are drawn in docs/house.md;
 * - nothing outside test/ imports test/ (tests use the product, never the other way round);
 * - code outside a shared/ module reaches it only through its public face: `index.ts` (a sender kind's
 *   `shared/sources/<kind>/index.ts` too), or a light entry
 *   file named `*.entry.ts` where a Lambda bundle must stay small (as Powertools' subpath exports do).
 * - every state-changing points call is sent by the protocol engine (shared/points/engine/act.ts): no other
 *   product file calls `grantPoints` or `calculatePoints` (the client defines them; tests, benches and the demo's
 *   seeding of a member, which stands for the membership service's own operator, may).
 * Prints each problem and exits 1 when there is one.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function isPublicEntry(file: string): boolean {
  // A sender kind's folder (shared/sources/<kind>/index.ts) is its own public face: its API client, its reconcile.
  return /^shared\/[^/]+\/(index|[\w-]+\.entry)\.ts$/.test(file) || /^shared\/sources\/[\w-]+\/index\.ts$/.test(file);
}

/** Where a state-changing points call may be written: the engine's one sender, and the client that defines it. */
const POINTS_CALL_HOMES = [/^shared\/points\/engine\/act\.ts$/, /^shared\/openapi\//];
const POINTS_CALL = /\.(grantPoints|calculatePoints)\s*\(/;

/** Product files (not tests, benches or tools) that send a points call themselves instead of through the engine. */
export function pointsCallProblems(root: string, files: readonly string[]): string[] {
  return files
    .filter((f) => !/^(test|bench|tools|demo)\//.test(f) && !POINTS_CALL_HOMES.some((home) => home.test(f)))
    .filter((f) => POINTS_CALL.test(readFileSync(resolve(root, f), 'utf8')))
    .map((f) => `points call outside the protocol engine: ${f} (send it through shared/points/engine: runOperation or act)`);
}

export function importProblems(root: string, files: readonly string[]): string[] {
  const graph = fileGraph(root, files);
  const problems: string[] = [...pointsCallProblems(root, files)];
  for (const cycle of cycles(graph)) problems.push(`file cycle: ${cycle.join(' ↔ ')}`);
  for (const cycle of cycles(moduleGraph(graph))) problems.push(`shared/ module cycle: ${cycle.join(' ↔ ')}`);
  for (const cycle of cycles(folderGraph(graph))) problems.push(`folder cycle: ${cycle.join(' ↔ ')} (see docs/house.md)`);
  for (const [from, targets] of graph) {
    if (from.startsWith('test/')) continue;
    for (const target of targets) {
      if (topFolderOf(target) === 'test')
        problems.push(`import of test/: ${from} → ${target} (move what it needs out of test/, e.g. to kit/)`);
    }
    for (const target of targets) {
      const module = sharedModuleOf(target);
      if (module === undefined || module === sharedModuleOf(from) || isPublicEntry(target)) continue;
      problems.push(`deep import: ${from} → ${target} (import ${module}/index.ts or a *.entry.ts)`);
    }
  }
  return problems;
}

function sourceFiles(root: string): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.tsx', '*.mts'], {
    cwd: root,
    encoding: 'utf8',
  });
  return listed.split('\n').filter((f) => f.length > 0 && existsSync(resolve(root, f)));
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = importProblems(ROOT, sourceFiles(ROOT));
  for (const problem of problems) console.error(problem);
  console.log(
    problems.length === 0
      ? 'imports: no cycles (files, shared/ modules, folders), no deep imports, nothing imports test/'
      : `imports: ${problems.length} problem(s)`,
  );
  process.exitCode = problems.length === 0 ? 0 : 1;
}
