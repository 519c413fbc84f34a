import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderSchemaBundle } from '../../packages/contract/src/schema-bundle';
import { diffSchemaBundle, runSchemaGate } from '../gates/schema-bundle';

const committedPath = join(import.meta.dirname, '..', '..', 'schema', 'agentlane.schema.json');
const dir = mkdtempSync(join(tmpdir(), 'agentlane-schema-gate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('schema bundle gate', () => {
  it('passes on the committed bundle', () => {
    expect(runSchemaGate(committedPath, () => {})).toBe(0);
  });

  it('generates deterministically', () => {
    expect(renderSchemaBundle()).toBe(renderSchemaBundle());
  });

  it('fails on a stale bundle and points at the first difference', () => {
    const stale = readFileSync(committedPath, 'utf8').replace('"minLength": 1', '"minLength": 2');
    const path = join(dir, 'stale.json');
    writeFileSync(path, stale);
    const lines: string[] = [];
    expect(runSchemaGate(path, (l) => lines.push(l))).toBe(1);
    expect(lines.join('\n')).toMatch(/first difference at line \d+/);
    expect(lines.join('\n')).toContain('npm run schema:generate');
  });

  it('fails when the bundle is missing', () => {
    expect(runSchemaGate(join(dir, 'absent.json'), () => {})).toBe(1);
    expect(diffSchemaBundle(undefined)).toBe('the bundle file is missing');
  });
});
