import { describe, expect, it } from 'vitest';
import { CASES, memoryInitializer, runConformance } from '../src/index';

describe('runConformance', () => {
  it('prints the reason of a declared skip and reports failures without throwing', async () => {
    const lines: string[] = [];
    const base = memoryInitializer();
    const outcomes = await runConformance(
      {
        ...base,
        name: 'memory-with-gaps',
        skip: { 'list-filters': 'this backend cannot filter by pin' },
        create: async () => {
          const saver = await base.create();
          // A deliberately broken backend: deleteSession does nothing.
          return Object.assign(saver, { deleteSession: async () => {} });
        },
      },
      { filter: /list-filters|delete-isolation|latest/, log: (line) => lines.push(line) },
    );
    expect(lines).toContain('- skip list-filters: this backend cannot filter by pin');
    expect(outcomes.find((o) => o.id === 'list-filters')?.status).toBe('skipped');
    expect(outcomes.find((o) => o.id === 'delete-isolation')?.status).toBe('failed');
    expect(outcomes.find((o) => o.id === 'latest')?.status).toBe('passed');
  });

  it('has unique case ids', () => {
    expect(new Set(CASES.map((c) => c.id)).size).toBe(CASES.length);
  });
});
