import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take longest (each starts real servers many times), started first so that on a fresh
 * clone, where vitest has no timing cache and would start the largest files first, the long ones do not end
 * up last and alone on one worker. Measured with `npx vitest run` (longest first); the rest keeps vitest's
 * own order (timing cache, then file size).
 */
const SLOW_FIRST = [
  'testing/faults/test/kill-cycles-postgres.test.ts',
  'testing/faults/test/kill-cycles-sqlite.test.ts',
  'testing/faults/test/sqlite-kill-restart.test.ts',
  'packages/cli/test/serve.test.ts',
  'testing/faults/test/pg-restart.test.ts',
  'testing/faults/test/fuzz-translators.test.ts',
  'testing/engines/test/acp-driver-lifecycle.test.ts',
  'testing/faults/test/fuzz-http.test.ts',
];

export default class SlowTestsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = SLOW_FIRST.indexOf(relative(process.cwd(), file.moduleId));
      return index === -1 ? SLOW_FIRST.length : index;
    };
    return sorted
      .map((file, order) => ({ file, order }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order)
      .map(({ file }) => file);
  }
}
