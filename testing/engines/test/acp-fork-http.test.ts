import { join } from 'node:path';
import { createDriver } from '@agentlane/adapter-acp';
import { describe } from 'vitest';
import { waitForEngineTranscript } from '../src/index';
import { startStack } from './opencode-stack';
import { installedAcpEngines, presets } from './support/acp-engines';
import { describeNativeFork } from './support/fork-suite';

/**
 * ACP's session/fork behind POST /sessions/:id/fork {runId}, with the pinned agent that advertises
 * `sessionCapabilities.fork`: Claude Code (claude-agent-acp 0.23.1). Codex (list, resume) and Gemini (load)
 * do not advertise it, so for them the route answers 409.
 */
const { entries, engines } = installedAcpEngines('fork end-to-end');

describe.skipIf(!engines.includes('claude'))('Claude Code over ACP', () => {
  describeNativeFork('claude', {
    engine: 'claude',
    forksMidThread: false,
    async start(fixture) {
      const driver = createDriver(
        presets.claude({
          entry: entries.claude ?? '',
          modelBaseUrl: fixture.fake.url,
          homeRoot: join(fixture.dir, 'homes'),
        }),
      );
      return startStack({ db: join(fixture.dir, 'agentlane.db'), drivers: [driver], workDir: fixture.work });
    },
    // Claude Code writes its transcript on a timer after answering; the fork copies what is on disk.
    stored: (fixture, text) => waitForEngineTranscript(join(fixture.dir, 'homes'), text),
  });
});
