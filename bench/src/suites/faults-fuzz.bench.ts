import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acpTranslator } from '@agentlane/adapter-acp';
import type { JsonValue } from '@agentlane/contract';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import { builtinServeConfig, startServeProcess } from '@agentlane/test-engines';
import { fuzzCaseArb, fuzzTranslator, routesOf, runFuzz } from '@agentlane/testing-faults';
import fc from 'fast-check';
import type { BenchResult } from '../types';

/**
 * The HTTP fuzz of the fault suite against a real `agentlane serve` on SQLite (10,000 malformed requests
 * generated from the OpenAPI document): cases sent, 5xx answers, hangs and bad error bodies.
 */
export async function run(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agentlane-fuzz-bench-'));
  const fake = await startFakeModelServer();
  const config = {
    ...builtinServeConfig({ fakeUrl: fake.url, workDir: dir, apiKey: 'sk-fuzz-bench-0123456789' }),
    limits: { requestsPerSecond: 100_000, requestBurst: 100_000 },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const serve = await startServeProcess([
    '--port',
    '0',
    '--db',
    join(dir, 'a.db'),
    '--config',
    join(dir, 'config.json'),
  ]);
  try {
    const post = async (path: string, body: unknown) =>
      (await (
        await fetch(`${serve.api}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as Record<string, { id?: string; runId?: string }>;
    const session = (await post('/sessions', { engine: 'builtin' })).session?.id as string;
    const runId = (await post(`/threads/${session}/runs`, { prompt: 'hi' })).run?.runId as string;
    const doc = (await (await fetch(`${serve.api}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const cases = fc.sample(fuzzCaseArb(routesOf(doc), [session, runId]), { numRuns: 10_000, seed: 16 });
    const started = performance.now();
    const report = await runFuzz(serve.url, cases);
    const seconds = (performance.now() - started) / 1000;
    const extra = `${(report.cases / seconds).toFixed(0)} requests/s; by status ${JSON.stringify(report.byStatus)}`;
    // What failed, to reproduce (the first few cases, bodies cut).
    for (const example of report.examples)
      console.error(`[faults-fuzz] ${example.why}: ${JSON.stringify(example.case)}`);
    return [
      { name: 'faults fuzz: HTTP cases sent', unit: 'count', value: report.cases, extra },
      { name: 'faults fuzz: 5xx answers', unit: 'count', value: report.serverErrors, extra },
      {
        name: 'faults fuzz: hangs + no answer + bad error bodies',
        unit: 'count',
        value: report.hangs + report.noAnswer + report.badShape,
        extra: `process exited: ${serve.child.exitCode !== null}`,
      },
      {
        name: 'faults fuzz: ACP translator, throws on 100,000 fuzzed frames',
        unit: 'count',
        value: fuzzTranslatorThrows(),
      },
    ];
  } finally {
    await serve.kill();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 100,000 fuzzed frames (mutations of the recorded Claude Code trace, junk) into the ACP translator. */
function fuzzTranslatorThrows(): number {
  const path = fileURLToPath(
    new URL('../../../packages/adapters/acp/test/__fixtures__/claude-agent-acp.wire.jsonl', import.meta.url),
  );
  const seeds = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as JsonValue);
  return fuzzTranslator(acpTranslator as never, seeds, 100_000).throws;
}
