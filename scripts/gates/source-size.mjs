#!/usr/bin/env node
// Gate: no source file over 400 lines and no function over 100 lines outside tests and generated code, so
// a file keeps one job and a function fits on a screen. The functions that were longer when the gate came
// (listed in source-size-known.json by file and name) may stay until they are split, but never grow; any
// other long function or file fails. Shrinking one below the limit is reported, so its entry goes too.
//
// Usage: node scripts/gates/source-size.mjs [root] (root: the folder whose packages/*/src, packages/adapters/*/src
// and testing/*/src are checked; the repository by default)

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = dirname(fileURLToPath(import.meta.url));
const root = process.argv[2] ?? join(here, '..', '..');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 100;
const knownPath = join(here, 'source-size-known.json');
/** "path#name" → the length it had; it may shrink, not grow. */
const known = new Map(
  process.argv[2] ? [] : Object.entries(JSON.parse(readFileSync(knownPath, 'utf8')).functions ?? {}),
);

function sourceDirs() {
  const dirs = [];
  for (const group of ['packages', 'packages/adapters', 'testing']) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) {
      const src = join(base, name, 'src');
      if (existsSync(src) && statSync(src).isDirectory()) dirs.push(src);
    }
  }
  return dirs;
}

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (/\.tsx?$/.test(name) && !/\.(test|d)\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

/** A function's name for the list: its own, or the variable, property or method it is assigned to. */
function nameOf(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText();
  return '(anonymous)';
}

const problems = [];
const seen = new Set();
for (const file of sourceDirs().flatMap((d) => walk(d))) {
  const rel = relative(root, file).split('\\').join('/');
  const text = readFileSync(file, 'utf8');
  if (text.startsWith('// @generated')) continue;
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  // Two long functions of one name in a file (nested anonymous ones) are told apart by their order.
  const names = new Map();
  const lines = src.getLineStarts().length;
  if (lines > MAX_FILE_LINES) problems.push(`${rel}: ${lines} lines (at most ${MAX_FILE_LINES})`);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const start = src.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = src.getLineAndCharacterOfPosition(node.end).line;
      const length = end - start + 1;
      if (length > MAX_FUNCTION_LINES) {
        const n = (names.get(nameOf(node)) ?? 0) + 1;
        names.set(nameOf(node), n);
        const key = `${rel}#${nameOf(node)}${n > 1 ? `@${n}` : ''}`;
        seen.add(key);
        const before = known.get(key);
        if (before === undefined)
          problems.push(
            `${rel}:${start + 1}: function ${nameOf(node)} is ${length} lines (at most ${MAX_FUNCTION_LINES})`,
          );
        else if (length > before)
          problems.push(
            `${rel}:${start + 1}: function ${nameOf(node)} grew to ${length} lines (was ${before}; split it)`,
          );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
}
const gone = [...known.keys()].filter((key) => !seen.has(key));
for (const key of gone)
  console.log(`source-size: ${key} is within the limit now; remove it from source-size-known.json`);
for (const p of problems) console.error(p);
if (problems.length > 0) process.exit(1);
console.log(`source-size: ok (${known.size - gone.length} known long functions left to split)`);
