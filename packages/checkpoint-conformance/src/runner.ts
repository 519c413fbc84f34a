import type { CheckpointSaver } from '@agentlane/checkpoints';
import { CASES, type ConformanceCase } from './cases.js';

/**
 * How a backend plugs in: a few lines that make an empty saver. `skip` declares known gaps; each
 * skipped case prints its reason, never silently.
 */
export interface SaverInitializer {
  name: string;
  /** Once before the suite (create a schema, a temp dir, ...). */
  beforeAll?(): Promise<void>;
  /** A saver for one case; cases use fresh session ids, so sharing one database is fine. */
  create(): Promise<CheckpointSaver>;
  /** After each case. Default: `saver.close()`. */
  destroy?(saver: CheckpointSaver): Promise<void>;
  afterAll?(): Promise<void>;
  skip?: Readonly<Record<string, string>>;
}

export interface CaseOutcome {
  id: string;
  title: string;
  status: 'passed' | 'failed' | 'skipped';
  detail?: string;
  ms: number;
}

export async function runCase(init: SaverInitializer, testCase: ConformanceCase): Promise<void> {
  const saver = await init.create();
  try {
    await testCase.run(saver);
  } finally {
    await (init.destroy ? init.destroy(saver) : saver.close());
  }
}

/** Runs every case (or those whose id matches `filter`) and reports; never throws for a failing case. */
export async function runConformance(
  init: SaverInitializer,
  options: { filter?: RegExp; log?: (line: string) => void } = {},
): Promise<CaseOutcome[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const outcomes: CaseOutcome[] = [];
  await init.beforeAll?.();
  try {
    for (const testCase of CASES) {
      if (options.filter && !options.filter.test(testCase.id)) continue;
      const reason = init.skip?.[testCase.id];
      if (reason !== undefined) {
        outcomes.push({ id: testCase.id, title: testCase.title, status: 'skipped', detail: reason, ms: 0 });
        log(`- skip ${testCase.id}: ${reason}`);
        continue;
      }
      const started = performance.now();
      try {
        await runCase(init, testCase);
        const ms = performance.now() - started;
        outcomes.push({ id: testCase.id, title: testCase.title, status: 'passed', ms });
        log(`✓ ${testCase.id} (${ms.toFixed(0)} ms)`);
      } catch (error) {
        const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
        outcomes.push({
          id: testCase.id,
          title: testCase.title,
          status: 'failed',
          detail,
          ms: performance.now() - started,
        });
        log(`✗ ${testCase.id}: ${detail}`);
      }
    }
  } finally {
    await init.afterAll?.();
  }
  return outcomes;
}

/** The slice of a test framework the suite needs (Vitest, Jest, node:test all fit). */
export interface TestApi {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => Promise<void>, timeout?: number): void;
  beforeAll(fn: () => Promise<void>, timeout?: number): void;
  afterAll(fn: () => Promise<void>, timeout?: number): void;
}

/** Registers one test per case; a declared skip becomes a test that logs its reason and passes. */
export function describeConformance(init: SaverInitializer, api: TestApi): void {
  api.describe(`checkpoint saver conformance: ${init.name}`, () => {
    api.beforeAll(async () => {
      await init.beforeAll?.();
    }, 60_000);
    api.afterAll(async () => {
      await init.afterAll?.();
    }, 60_000);
    for (const testCase of CASES) {
      const reason = init.skip?.[testCase.id];
      if (reason !== undefined) {
        api.it(`${testCase.group} › ${testCase.id} [skipped: ${reason}]`, async () => {
          console.log(`[conformance:${init.name}] skip ${testCase.id}: ${reason}`);
        });
        continue;
      }
      api.it(`${testCase.group} › ${testCase.id}: ${testCase.title}`, () => runCase(init, testCase), 60_000);
    }
  });
}
