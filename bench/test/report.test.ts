import { describe, expect, it } from 'vitest';
import { formatTable, mergeResults } from '../src/report';

describe('bench report', () => {
  it('merges fresh results over previous ones by name', () => {
    const merged = mergeResults(
      [
        { name: 'a', unit: 'x', value: 1 },
        { name: 'b', unit: 'x', value: 2 },
      ],
      [{ name: 'b', unit: 'x', value: 3 }],
    );
    expect(merged).toEqual([
      { name: 'a', unit: 'x', value: 1 },
      { name: 'b', unit: 'x', value: 3 },
    ]);
  });
  it('formats a table with every name', () => {
    const t = formatTable([{ name: 'lane ingest', unit: 'events/s', value: 12345.6, ratio: 0.8 }]);
    expect(t).toContain('lane ingest');
    expect(t).toContain('0.80');
  });
});
