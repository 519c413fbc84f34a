import { describe, expect, it } from 'vitest';
import {
  AUDIT_RECORD_VERSION,
  AUDIT_RECORD_VERSION_HISTORY,
  buildSchemaBundle,
  CONTRACT_SCHEMAS,
} from '../src/index';

/** Property schemas without a description, outside the if/then rules (whose text lives on `then`). */
function undocumented(node: unknown, path: string, out: string[]): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      undocumented(item, `${path}/${i}`, out);
    });
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  for (const [key, child] of Object.entries(node)) {
    if (key === 'allOf') continue;
    if (key === 'properties' && typeof child === 'object' && child !== null) {
      for (const [name, schema] of Object.entries(child as Record<string, Record<string, unknown>>)) {
        if (!schema['description'] && !schema['$ref']) out.push(`${path}/properties/${name}`);
      }
    }
    undocumented(child, `${path}/${key}`, out);
  }
}

describe('schema bundle', () => {
  const bundle = buildSchemaBundle();
  const defs = bundle['$defs'] as Record<string, Record<string, unknown>>;

  it('is JSON Schema 2020-12 with one $defs entry per named shape', () => {
    expect(bundle['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(Object.keys(defs).sort()).toEqual(Object.keys(CONTRACT_SCHEMAS).sort());
  });

  it('documents every shape and every field', () => {
    const missing: string[] = [];
    for (const [name, def] of Object.entries(defs)) {
      if (!def['description']) missing.push(name);
      undocumented(def, name, missing);
    }
    expect(missing).toEqual([]);
  });

  it('refers to shared shapes instead of copying them', () => {
    const text = JSON.stringify(defs['ToolCompletedPayload']);
    expect(text).toContain('"$ref":"#/$defs/ArtifactWithPreview"');
    expect(JSON.stringify(defs['ArtifactWithPreview'])).toContain('"$ref":"#/$defs/ArtifactRef"');
  });
});

describe('audit record versions', () => {
  it('lists every version from 1 to the current one, in order', () => {
    expect(AUDIT_RECORD_VERSION_HISTORY.map((entry) => entry.version)).toEqual(
      Array.from({ length: AUDIT_RECORD_VERSION }, (_, i) => i + 1),
    );
  });
});
