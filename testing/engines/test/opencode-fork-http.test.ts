import { join } from 'node:path';
import { createDriver } from '@agentlane/adapter-opencode';
import { describe } from 'vitest';
import { openCodeBinaryOrReason } from './opencode-harness';
import { startStack } from './opencode-stack';
import { describeNativeFork } from './support/fork-suite';
import { openCodeConfig } from './support/opencode-config';

const { binary, reason } = openCodeBinaryOrReason();
if (reason) console.warn(`[skip] OpenCode fork end-to-end tests: ${reason}`);

// OpenCode's own fork (POST /session/{id}/fork with a message id) behind POST /sessions/:id/fork {runId}.
describe.skipIf(!binary)('OpenCode', () => {
  describeNativeFork('opencode', {
    engine: 'opencode',
    forksMidThread: true,
    async start(fixture) {
      const driver = createDriver({
        binary,
        home: join(fixture.dir, 'opencode-home'),
        config: openCodeConfig(fixture.fake),
        settleMs: 150,
      });
      const stack = await startStack({
        db: join(fixture.dir, 'agentlane.db'),
        drivers: [driver],
        workDir: fixture.work,
      });
      return {
        api: stack.api,
        async stop() {
          await stack.stop();
          await driver.dispose();
        },
      };
    },
  });
});
