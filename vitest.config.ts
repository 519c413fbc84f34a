import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import SlowTestsFirst from './scripts/slow-tests-first';

// Tests run the TypeScript sources: the workspace packages' `agentlane-source` export points at src/*.ts
// (their default export is the dist/ build). Processes a test starts with tsx (`node --import tsx …`)
// inherit the same condition through NODE_OPTIONS.
const SOURCE = 'agentlane-source';
if (!process.env.NODE_OPTIONS?.includes(`--conditions=${SOURCE}`))
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--conditions=${SOURCE}`].filter(Boolean).join(' ');

export default defineConfig({
  resolve: { conditions: [SOURCE, ...defaultClientConditions] },
  ssr: { resolve: { conditions: [SOURCE, ...defaultServerConditions] } },
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
    // Vitest's default is one worker less than the cores: one worker on a 2-core machine. Most files wait on
    // real servers, engines and databases rather than compute, so three workers finish the suite far sooner.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS ?? 3),
    sequence: { sequencer: SlowTestsFirst },
    reporters: ['default'],
  },
});
