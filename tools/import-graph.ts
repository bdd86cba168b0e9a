import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The project's import graph, read from the source text (the native `tsc` has no JavaScript API, and a
 * cycle needs only the specifiers). Every kind of import counts: static, type-only (`import type`,
 * `export type … from`) and dynamic (`import('…')`), because a cycle through any of them still ties the
 * two sides together for the reader and for the bundler.
 */

const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** Specifiers in a file's text, comments removed first so a quoted example in a comment is not an import. */
export function specifiersIn(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const found: string[] = [];
  for (const match of code.matchAll(SPECIFIER)) found.push(match[1] ?? match[2] ?? '');
  return found.filter((s) => s.length > 0);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The repository file a relative specifier names (`./x.js` is `./x.ts`), or undefined for a package. */
export function resolveSpecifier(root: string, fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(root, dirname(fromFile), specifier);
  const stem = base.replace(/\.(js|mjs|ts)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, base, join(base, 'index.ts')]) {
    if (isFile(candidate)) return relative(root, candidate);
  }
  return undefined;
}

export type Graph = Map<string, Set<string>>;

/** File → files it imports, for the given repository-relative files. */
export function fileGraph(root: string, files: readonly string[], read = (f: string) => readFileSync(join(root, f), 'utf8')): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of specifiersIn(read(file))) {
      const target = resolveSpecifier(root, file, specifier);
      if (target !== undefined && target !== file) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The shared/ module a file belongs to (`shared/points`), or undefined outside shared/. */
export function sharedModuleOf(file: string): string | undefined {
  const match = /^shared\/([^/]+)\//.exec(file);
  return match ? `shared/${match[1]}` : undefined;
}

/** Group → groups it imports, each file placed in a group by `groupOf` (undefined: in none, not counted). */
function groupGraph(files: Graph, groupOf: (file: string) => string | undefined): Graph {
  const graph: Graph = new Map();
  for (const [from, targets] of files) {
    const source = groupOf(from);
    if (source === undefined) continue;
    const edges = graph.get(source) ?? new Set<string>();
    for (const target of targets) {
      const group = groupOf(target);
      if (group !== undefined && group !== source) edges.add(group);
    }
    graph.set(source, edges);
  }
  return graph;
}

/** shared/ module → shared/ modules it imports. */
export function moduleGraph(files: Graph): Graph {
  return groupGraph(files, sharedModuleOf);
}

/** The top-level folder a file lives in (`local`, `stand-ins`), or undefined for a file at the root. */
export function topFolderOf(file: string): string | undefined {
  const slash = file.indexOf('/');
  return slash < 0 ? undefined : file.slice(0, slash);
}

/** Top-level folder → top-level folders it imports (files at the root, like package.json, are no folder). */
export function folderGraph(files: Graph): Graph {
  return groupGraph(files, topFolderOf);
}

/** Strongly connected components with more than one member: each is at least one cycle. */
export function cycles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}
