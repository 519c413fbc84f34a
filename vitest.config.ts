import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'packages/**/test/**/*.test.ts',
      'testing/**/test/**/*.test.ts',
      'bench/test/**/*.test.ts',
      'scripts/test/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', 'packages/web/src/**', 'packages/web/dist/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
