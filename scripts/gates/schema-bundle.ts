// Gate: the committed JSON Schema bundle (schema/agentlane.schema.json) is exactly what the contract source
// generates. A non-TypeScript client reads the bundle, so it must never lag the types.
//
// Usage: node --conditions=agentlane-source --import tsx scripts/gates/schema-bundle.ts [bundle-path]

import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSchemaBundle } from '../../packages/contract/src/schema-bundle';

/** Compares `committed` with the freshly generated bundle; returns a description of the first difference. */
export function diffSchemaBundle(
  committed: string | undefined,
  generated: string = renderSchemaBundle(),
): string | null {
  if (committed === undefined) return 'the bundle file is missing';
  if (committed === generated) return null;
  const a = committed.split('\n');
  const b = generated.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) {
      return `first difference at line ${i + 1}:\n  committed: ${a[i] ?? '<end of file>'}\n  generated: ${b[i] ?? '<end of file>'}`;
    }
  }
  return 'the files differ';
}

export function runSchemaGate(bundlePath: string, log: (line: string) => void = console.log): number {
  let committed: string | undefined;
  try {
    committed = readFileSync(bundlePath, 'utf8');
  } catch {
    committed = undefined;
  }
  const difference = diffSchemaBundle(committed);
  if (difference === null) {
    log(`schema bundle: ${bundlePath} is up to date`);
    return 0;
  }
  log(`schema bundle: ${bundlePath} is stale (${difference})`);
  log('run `npm run schema:generate` and commit the result');
  return 1;
}

const self = fileURLToPath(import.meta.url);
if (process.argv[1] && resolve(process.argv[1]) === self) {
  const path = process.argv[2] ?? join(dirname(self), '..', '..', 'schema', 'agentlane.schema.json');
  process.exit(runSchemaGate(resolve(path)));
}
