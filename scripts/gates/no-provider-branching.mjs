#!/usr/bin/env node
// Gate: nothing above the adapters branches on an engine. The lane, store, server, clients, web UI and CLI
// must gate on the negotiated capability map, never on a provider id or engine name; adding an engine must
// touch only its adapter folder (and the CLI's engine registry, the one place that maps a configured type
// to its adapter package).
//
// It parses every source file with the TypeScript compiler and reports a string literal naming an engine
// (acp, opencode, claude, codex, gemini, builtin, ...) used in a comparison (===, !==, ==, !=), a `case`
// label, or a string test (`includes`, `startsWith`, `endsWith`, `indexOf`, `match`, `test`).
//
// Usage: node scripts/gates/no-provider-branching.mjs [root ...]   (default: the packages above the adapters)

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');

export const DEFAULT_ROOTS = ['lane', 'server', 'client', 'web', 'store', 'cli'].map((p) =>
  join(repo, 'packages', p, 'src'),
);

/** The one file allowed to name engine types: it maps a configured type to its adapter package. */
export const EXEMPT = [join(repo, 'packages', 'cli', 'src', 'engine-registry.ts')];

const ENGINE_NAMES = [
  'acp',
  'opencode',
  'claude',
  'claude-code',
  'codex',
  'gemini',
  'builtin',
  'anthropic',
  'openai',
  'google',
  'zed',
];
const NAME = new RegExp(`^(${ENGINE_NAMES.join('|')})([^a-z].*)?$`, 'i');
const STRING_TESTS = new Set(['includes', 'startsWith', 'endsWith', 'indexOf', 'match', 'test', 'has']);
const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

function isEngineLiteral(node) {
  return (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && NAME.test(node.text);
}

function sourceFiles(root) {
  let stat;
  try {
    stat = statSync(root);
  } catch {
    return [];
  }
  if (stat.isFile()) return /\.(m|c)?tsx?$/.test(root) ? [root] : [];
  const out = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(root, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(m|c)?tsx?$/.test(entry.name) && !/\.d\.(m|c)?ts$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** Every branching use of an engine name in one file: `{ file, line, literal, why }`. */
export function scanFile(file) {
  const text = readFileSync(file, 'utf8');
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const hits = [];
  const report = (node, why) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    hits.push({ file, line: line + 1, literal: node.text, why });
  };
  const visit = (node) => {
    if (ts.isBinaryExpression(node) && COMPARISONS.has(node.operatorToken.kind)) {
      for (const side of [node.left, node.right]) if (isEngineLiteral(side)) report(side, 'comparison');
    } else if (ts.isCaseClause(node) && isEngineLiteral(node.expression)) {
      report(node.expression, 'case label');
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      STRING_TESTS.has(node.expression.name.text)
    ) {
      for (const arg of node.arguments)
        if (isEngineLiteral(arg)) report(arg, `${node.expression.name.text}()`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return hits;
}

export function scan(roots = DEFAULT_ROOTS, exempt = EXEMPT) {
  const skip = new Set(exempt.map((p) => resolve(p)));
  return roots.flatMap((root) =>
    sourceFiles(resolve(root))
      .filter((f) => !skip.has(f))
      .flatMap(scanFile),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const hits = scan(args.length > 0 ? args : DEFAULT_ROOTS);
  for (const hit of hits) {
    console.error(
      `${relative(process.cwd(), hit.file)}:${hit.line}: branches on the engine name '${hit.literal}' (${hit.why}); gate on the capability map instead`,
    );
  }
  console.log(`no-provider-branching: ${hits.length === 0 ? 'ok' : `${hits.length} violation(s)`}`);
  process.exit(hits.length === 0 ? 0 : 1);
}
