import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FakeModelServer, slowStream, startFakeModelServer } from '@agentlane/fake-model-server';
import { builtinServeConfig } from '@agentlane/test-engines';

/** What the serve processes of a fault test share: a temp folder, the fake model server, a config file. */
export interface BuiltinFixture {
  dir: string;
  fake: FakeModelServer;
  /** `--config` of every `agentlane serve`: the built-in engine on the fake model server. */
  configPath: string;
  close(): Promise<void>;
}

/**
 * The fake model server streaming slowly (`chunks` chunks `delayMs` apart, so runs are in flight when a fault
 * hits) and a serve config of the built-in engine on it, with `extra` settings on top.
 */
export async function startBuiltinFixture(
  prefix: string,
  stream: { chunks: number; delayMs: number },
  extra: Record<string, unknown> = {},
): Promise<BuiltinFixture> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const fake = await startFakeModelServer({ scenario: slowStream(stream) });
  const configPath = join(dir, 'config.json');
  const config = { ...builtinServeConfig({ fakeUrl: fake.url, workDir: dir, apiKey: 'k' }), ...extra };
  writeFileSync(configPath, JSON.stringify(config));
  return {
    dir,
    fake,
    configPath,
    async close() {
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
