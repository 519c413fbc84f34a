import { expect } from 'vitest';
import type { SuiteContext } from './context';

/** Lifecycle: migrations and the append-only guard of the schema. */
export function lifecycleTests(s: SuiteContext): void {
  const { test, newThread, code } = s;

  test('migrate twice is a no-op', async ({ store }) => {
    await store.migrate();
    const threadId = await newThread();
    await store.migrate();
    expect(await store.getThread(threadId)).not.toBeNull();
  });

  test('migrations: versions are recorded; a database newer than the code is refused', async ({
    store,
    fx,
  }) => {
    await fx.execSql(
      "INSERT INTO store_migrations (version, name, applied_at) VALUES (999, 'from the future', 'x')",
    );
    expect(await code(store.migrate())).toBe('unavailable');
  });
}
