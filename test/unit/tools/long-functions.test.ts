import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { longFunctions, longFunctionsIn, sourceFiles } from '../../../tools/long-functions.js';

/** The standing rule "no function over 120 lines", on made-up texts and on every non-test file of the repository. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const lines = (n: number, line = '  x();') => Array.from({ length: n }, () => line).join('\n');
const found = (text: string, max = 5) => longFunctionsIn('a.ts', text, max).map((f) => `${f.name}:${f.line}:${f.lines}`);

/** Functions over the limit (file:name), each with its reason; any other over 120 lines outside test/ fails the test. */
const KNOWN: string[] = [];

describe('long functions', () => {
  it('counts a function declaration from its header line to its closing line, doc comment excluded', () => {
    const text = `/**\n * doc\n */\nexport async function f(a: string): Promise<void> {\n${lines(5)}\n}\n`;
    expect(found(text)).toEqual(['f:4:7']);
  });

  it('counts arrow functions, methods and constructors, and the factory around them', () => {
    const text = [
      'export const make = (deps: Deps) => {',
      '  const inner = async (x: number): Promise<number> => {',
      lines(5),
      '  };',
      '  return {',
      '    method(a) {',
      lines(5, '      y();'),
      '    },',
      '  };',
      '};',
      'class C {',
      '  constructor(a: string) {',
      lines(5, '    z();'),
      '  }',
      '}',
    ].join('\n');
    expect(found(text)).toEqual(['make:1:18', 'inner:2:7', 'method:10:7', 'constructor:20:7']);
  });

  it('takes a method signature in a return type for no function', () => {
    const text = `export function make(): Thing & { report(): Report; check(): Promise<void> } {\n${lines(5)}\n}`;
    expect(found(text)).toEqual(['make:1:7']);
  });

  it('leaves a function of exactly the limit alone', () => {
    expect(found(`function f() {\n${lines(3)}\n}`)).toEqual([]);
    expect(found(`function f() {\n${lines(4)}\n}`)).toEqual(['f:1:6']);
  });

  it('is not misled by braces in strings, templates, comments and regular expressions, nor by control blocks or function types', () => {
    const text = [
      'function f(): (x: string) => void {',
      "  const a = '{';",
      `  const b = \`\${a}{\`;`,
      '  // }',
      '  const r = /[{}]/g;',
      '  if (a) {',
      lines(6, '    w();'),
      '  }',
      '  return () => {};',
      '}',
      'const after = 1;',
    ].join('\n');
    // `if (a) {` is 8 lines and the function type's `=>` has no body: only f is reported.
    expect(found(text)).toEqual(['f:1:15']);
  });

  it('finds no function over 120 lines in the repository outside test/ but the known ones', () => {
    const over = longFunctions(ROOT, sourceFiles(ROOT)).map((f) => `${f.file}:${f.name}`);
    expect(over.filter((f) => !KNOWN.includes(f))).toEqual([]);
  });
});
