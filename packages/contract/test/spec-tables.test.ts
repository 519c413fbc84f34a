import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CANONICAL_EVENT_KINDS,
  CAPABILITY_FLAGS,
  CONTEXT_MARKER_KINDS,
  CONTRACT_SCHEMAS,
  EVENT_SCHEMAS,
  kindStem,
  NegotiatedCapabilitiesSchema,
  PAYLOAD_SCHEMAS,
} from '../src/index';

// The spec's two tables (copied into fixtures/spec-tables.md) against the contract: the 30 kinds and the 20
// flags, same names, same order, nothing missing and nothing extra.

const text = readFileSync(join(import.meta.dirname, 'fixtures', 'spec-tables.md'), 'utf8');

/** Rows of the markdown table whose header starts with `header`, as [first cell, second cell]. */
function tableRows(header: string): [string, string][] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(header));
  expect(start).toBeGreaterThanOrEqual(0);
  const rows: [string, string][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').map((cell) => cell.trim());
    rows.push([cells[1] ?? '', cells[2] ?? '']);
  }
  return rows;
}

const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

describe('the contract matches the spec tables', () => {
  const kindRows = tableRows('| Group | Kinds |');
  const flagRows = tableRows('| Area | Flags |');

  it('has exactly the 30 kinds of the vocabulary table, in its order', () => {
    // Cells also mention the `fatal` flag in backticks; kinds are the dotted names.
    const kinds = kindRows.flatMap(([, cell]) => backticked(cell)).filter((token) => token?.includes('.'));
    expect(kinds).toHaveLength(30);
    expect([...CANONICAL_EVENT_KINDS]).toEqual(kinds);
  });

  it('has exactly the 20 flags of the capability table, in its order', () => {
    const flags = flagRows.flatMap(([, cell]) => backticked(cell));
    expect(flags).toHaveLength(20);
    expect([...CAPABILITY_FLAGS]).toEqual(flags);
    expect(Object.keys(NegotiatedCapabilitiesSchema.properties)).toEqual(flags);
  });

  it('has the context marker kinds the table lists for context.marker', () => {
    const row = kindRows.find(([group]) => group === 'Context markers');
    const listed = /\(([^)]+)\)/
      .exec(row?.[1] ?? '')?.[1]
      ?.split(',')
      .map((s) => s.trim());
    expect([...CONTEXT_MARKER_KINDS]).toEqual(listed);
  });

  it('gives harness.error its fatal flag', () => {
    expect(kindRows.find(([group]) => group === 'Harness diagnostics')?.[1]).toContain('fatal');
    expect(PAYLOAD_SCHEMAS['harness.error'].required).toContain('fatal');
  });

  it('has a payload schema, an event schema and a named bundle entry for every kind', () => {
    for (const kind of CANONICAL_EVENT_KINDS) {
      expect(PAYLOAD_SCHEMAS[kind]).toBeDefined();
      expect(EVENT_SCHEMAS[kind].properties.kind.const).toBe(kind);
    }
    expect(Object.keys(PAYLOAD_SCHEMAS)).toEqual([...CANONICAL_EVENT_KINDS]);
    for (const kind of CANONICAL_EVENT_KINDS) {
      expect(CONTRACT_SCHEMAS).toHaveProperty(`${kindStem(kind)}Payload`);
      expect(CONTRACT_SCHEMAS).toHaveProperty(`${kindStem(kind)}Event`);
    }
  });
});
