import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The standing rule "no function over 120 lines", counted by whole lines from the line a function's
 * header starts on to the line its body ends on (doc comment excluded, inner functions included):
 * function declarations and expressions, arrow functions, methods, accessors and constructors.
 * Read from the source text: the project's TypeScript (7, native) has no JavaScript compiler API. Prints
 * each function over the limit and exits 1 when there is one.
 */

export const MAX_FUNCTION_LINES = 120;

export interface LongFunction {
  file: string;
  name: string;
  /** 1-based line of the header. */
  line: number;
  lines: number;
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const REGEX_AFTER_WORD = new Set(['return', 'typeof', 'case', 'in', 'of', 'new', 'delete', 'void', 'throw', 'yield', 'await']);
const NOT_A_METHOD = new Set(['if', 'for', 'while', 'switch', 'catch', 'with', 'function', 'return', 'typeof', 'await', 'new']);

/** The text with comments, string and template texts and regular expressions blanked (newlines kept). */
export function codeOnly(text: string): string {
  const out = text.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  // Brace depth of each open template expression (`${`), innermost last.
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const n = text.length;
  const previousSignificant = (at: number): { char: string; word: string } => {
    let k = at - 1;
    while (k >= 0 && /\s/.test(out[k] as string)) k--;
    let end = k + 1;
    while (k >= 0 && /[\w$]/.test(out[k] as string)) k--;
    const word = out.slice(k + 1, end).join('');
    if (word.length === 0) end = k;
    return { char: k + 1 < end && word.length === 0 ? '' : word.length > 0 ? 'w' : ((out[k] as string | undefined) ?? ''), word };
  };
  const templateText = (start: number): number => {
    // From just after a backtick or a closing `}` of an expression, to the end of the text part.
    let k = start;
    while (k < n) {
      const c = text[k];
      if (c === '\\') k += 2;
      else if (c === '`') {
        blank(start, k);
        return k + 1;
      } else if (c === '$' && text[k + 1] === '{') {
        blank(start, k);
        templates.push(depth);
        depth++;
        return k + 2;
      } else k++;
    }
    blank(start, n);
    return n;
  };
  while (i < n) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? n : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? n : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === "'" || c === '"') {
      let k = i + 1;
      while (k < n && text[k] !== c && text[k] !== '\n') k += text[k] === '\\' ? 2 : 1;
      blank(i + 1, k);
      i = k + 1;
    } else if (c === '`') {
      i = templateText(i + 1);
    } else if (c === '/') {
      const before = previousSignificant(i);
      const regex =
        before.char === '' || (before.char === 'w' ? REGEX_AFTER_WORD.has(before.word) : '(,=:[!&|?{};+-*%<>~^'.includes(before.char));
      if (!regex) {
        i++;
        continue;
      }
      let k = i + 1;
      let inClass = false;
      while (k < n && text[k] !== '\n') {
        const r = text[k];
        if (r === '/' && !inClass) break;
        if (r === '[') inClass = true;
        else if (r === ']') inClass = false;
        k += r === '\\' ? 2 : 1;
      }
      blank(i + 1, k);
      i = k + 1;
    } else if (c === '{') {
      depth++;
      i++;
    } else if (c === '}') {
      depth--;
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        templates.pop();
        i = templateText(i + 1);
      } else i++;
    } else i++;
  }
  return out.join('');
}

const CLOSE: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
const OPEN: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** Index of the bracket matching the one at `at` (forward for an opening one, backward for a closing one). */
function matching(code: string, at: number): number {
  const c = code[at] as string;
  const forward = c in OPEN;
  const open = forward ? c : (CLOSE[c] as string);
  const close = forward ? (OPEN[c] as string) : c;
  let depth = 0;
  for (let k = at; forward ? k < code.length : k >= 0; k += forward ? 1 : -1) {
    if (code[k] === open) depth += forward ? 1 : -1;
    else if (code[k] === close) depth += forward ? -1 : 1;
    if (depth === 0) return k;
  }
  return -1;
}

const skipSpaceBack = (code: string, at: number): number => {
  let k = at;
  while (k >= 0 && /\s/.test(code[k] as string)) k--;
  return k;
};
const skipSpace = (code: string, at: number): number => {
  let k = at;
  while (k < code.length && /\s/.test(code[k] as string)) k++;
  return k;
};

/**
 * After a parameter list's `)` at `close`: the index of the body's `{`, past a return type annotation if
 * there is one; -1 when no body follows (an overload, a call, a type).
 */
function bodyAfter(code: string, close: number): number {
  let k = skipSpace(code, close + 1);
  if (code[k] === '{') return k;
  if (code[k] !== ':') return -1;
  // A return type: the body's `{` is the first one at depth 0 not opening a type literal.
  let depth = 0;
  k++;
  for (; k < code.length; k++) {
    const c = code[k] as string;
    if (c === '(' || c === '[' || c === '<') depth++;
    else if (c === ')' || c === ']' || (c === '>' && code[k - 1] !== '=')) depth--;
    // The end of a method signature in a type (`{ report(): Report }`, `…; next(): T`): no body.
    else if (c === '}' || ((c === ';' || c === ',') && depth === 0) || (c === '=' && code[k + 1] !== '>')) return -1;
    else if (c === '{') {
      const p = skipSpaceBack(code, k - 1);
      const before = code[p] as string;
      const opensType = ':|&<,([?'.includes(before) || (before === '>' && code[p - 1] === '=');
      if (depth === 0 && !opensType) return k;
      k = matching(code, k);
      if (k === -1) return -1;
    }
    if (depth < 0) return -1;
  }
  return -1;
}

/** The end of an arrow function's expression body starting at `from`: where a `,`, `;` or a closing bracket ends it. */
function expressionEnd(code: string, from: number): number {
  for (let k = from; k < code.length; k++) {
    const c = code[k] as string;
    if (c in OPEN) {
      k = matching(code, k);
      if (k === -1) return code.length - 1;
    } else if (c === ',' || c === ';' || c in CLOSE) return k - 1;
  }
  return code.length - 1;
}

const lineAt = (starts: number[], index: number): number => {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo;
};

/** The name before `at` (a function's, a method's, or the variable or property an arrow is assigned to). */
function nameBefore(code: string, at: number): string {
  let k = skipSpaceBack(code, at);
  if (code[k] === '>') {
    // Type parameters: <T, U>.
    let depth = 0;
    for (; k >= 0; k--) {
      if (code[k] === '>') depth++;
      else if (code[k] === '<') depth--;
      if (depth === 0) break;
    }
    k = skipSpaceBack(code, k - 1);
  }
  if (code[k] === '=' || code[k] === ':') k = skipSpaceBack(code, k - 1);
  if (code[k] === 'c' && code.slice(k - 4, k + 1) === 'async') k = skipSpaceBack(code, k - 5);
  if (code[k] === '=' || code[k] === ':') k = skipSpaceBack(code, k - 1);
  const end = k + 1;
  while (k >= 0 && /[\w$]/.test(code[k] as string)) k--;
  const name = code.slice(k + 1, end);
  return name === '' || NOT_A_METHOD.has(name) ? '(anonymous)' : name;
}

/** The functions of one source text longer than `max` lines. */
export function longFunctionsIn(file: string, text: string, max = MAX_FUNCTION_LINES): LongFunction[] {
  const code = codeOnly(text);
  const starts = [0];
  for (let k = 0; k < code.length; k++) if (code[k] === '\n') starts.push(k + 1);
  const found: LongFunction[] = [];
  const record = (name: string, headerAt: number, endAt: number) => {
    const first = lineAt(starts, headerAt);
    const lines = lineAt(starts, endAt) - first + 1;
    if (lines > max) found.push({ file, name, line: first + 1, lines });
  };
  for (let k = 0; k < code.length; k++) {
    const c = code[k];
    if (c === '=' && code[k + 1] === '>') {
      // An arrow: its parameters are `(…)` or one name, perhaps with a return type between them and `=>`.
      let p = skipSpaceBack(code, k - 1);
      let headerAt = p;
      if (code[p] === ')') headerAt = matching(code, p);
      else {
        // `(…): Type =>`: the nearest `)` followed by `:` before it on the way back, if any.
        const colon = code.lastIndexOf('):', p);
        const semicolon = Math.max(code.lastIndexOf(';', p), code.lastIndexOf('{', p));
        if (colon > semicolon && colon !== -1) headerAt = matching(code, colon);
        else while (p >= 0 && /[\w$]/.test(code[p] as string)) headerAt = p--;
      }
      // A function type (`f(): (x: T) => R`, `name: (x: T) => R`), not a function.
      if (headerAt < 0 || code[skipSpaceBack(code, headerAt - 1)] === ':') continue;
      const bodyAt = skipSpace(code, k + 2);
      const endAt = code[bodyAt] === '{' ? matching(code, bodyAt) : expressionEnd(code, bodyAt);
      if (endAt !== -1) record(nameBefore(code, headerAt - 1), headerAt, endAt);
    } else if (c === '(') {
      // `function name(…) {`, `name(…) {` (a method, accessor or constructor), perhaps with <T> and a return type.
      let p = skipSpaceBack(code, k - 1);
      if (code[p] === '>') {
        let depth = 0;
        for (; p >= 0; p--) {
          if (code[p] === '>') depth++;
          else if (code[p] === '<') depth--;
          if (depth === 0) break;
        }
        p = skipSpaceBack(code, p - 1);
      }
      const end = p + 1;
      while (p >= 0 && /[\w$]/.test(code[p] as string)) p--;
      const word = code.slice(p + 1, end);
      const before = code[skipSpaceBack(code, p)];
      const isFunctionKeyword = word === 'function' || code.slice(skipSpaceBack(code, p) - 7, skipSpaceBack(code, p) + 1) === 'function';
      if (!isFunctionKeyword && (word === '' || NOT_A_METHOD.has(word) || before === '.')) continue;
      const close = matching(code, k);
      if (close === -1) continue;
      const bodyAt = bodyAfter(code, close);
      if (bodyAt === -1) continue;
      const endAt = matching(code, bodyAt);
      if (endAt === -1) continue;
      const headerAt = word === '' || word === 'function' ? skipSpaceBack(code, p) : p + 1;
      record(word === 'function' || word === '' ? 'function' : word, headerAt, endAt);
    }
  }
  return found;
}

/** The non-test TypeScript files git knows of (tracked or new), outside test/. */
export function sourceFiles(root: string): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.mts'], {
    cwd: root,
    encoding: 'utf8',
  });
  return listed
    .split('\n')
    .filter((f) => f.length > 0 && !f.startsWith('test/') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts'))
    .filter((f) => existsSync(resolve(root, f)));
}

export function longFunctions(root: string, files: readonly string[], max = MAX_FUNCTION_LINES): LongFunction[] {
  return files.flatMap((f) => longFunctionsIn(f, readFileSync(resolve(root, f), 'utf8'), max));
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const found = longFunctions(ROOT, sourceFiles(ROOT));
  for (const f of found) console.error(`${f.file}:${f.line} ${f.name}: ${f.lines} lines`);
  console.log(
    found.length === 0 ? `functions: none over ${MAX_FUNCTION_LINES} lines` : `functions: ${found.length} over ${MAX_FUNCTION_LINES} lines`,
  );
  process.exitCode = found.length === 0 ? 0 : 1;
}
