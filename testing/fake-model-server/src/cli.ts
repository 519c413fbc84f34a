/**
 * Runs the fake model server standalone:
 *   node --conditions=agentlane-source --import tsx testing/fake-model-server/src/cli.ts [--port 18081] [--scenario tool-then-answer]
 *        [--tool-name write --tool-args '{"filePath":"/tmp/x/hello.txt","content":"hi"}'] [--text "answer"]
 * Without --tool-name, tool-then-answer writes ./hello.txt with whichever write tool the engine offers.
 */
import { parseArgs } from 'node:util';
import { answer, longAnswer, providerError, slowStream, toolThenAnswer, writeFileTool } from './scenarios';
import { startFakeModelServer } from './server';
import type { Scenario } from './types';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    scenario: { type: 'string', default: 'tool-then-answer' },
    'tool-name': { type: 'string' },
    'tool-args': { type: 'string', default: '{}' },
    text: { type: 'string' },
    'log-requests': { type: 'boolean', default: false },
  },
});

function pickScenario(): Scenario {
  switch (values.scenario) {
    case 'answer':
      return answer(values.text ?? 'Hello from the fake model.');
    case 'long-answer':
      return longAnswer();
    case 'slow-stream':
      return slowStream();
    case 'provider-error':
      return providerError(values.text ?? 'fake provider error');
    case 'tool-then-answer': {
      const name = values['tool-name'];
      const tool = name
        ? { name, arguments: JSON.parse(values['tool-args'] ?? '{}') as Record<string, unknown> }
        : writeFileTool(`${process.cwd()}/hello.txt`, 'hello\n');
      return toolThenAnswer({ tool, answer: values.text });
    }
    default:
      throw new Error(`unknown --scenario ${values.scenario}`);
  }
}

const server = await startFakeModelServer({ port: Number(values.port), scenario: pickScenario() });
process.stdout.write(`fake model server listening on ${server.url}\n`);
if (values['log-requests']) {
  const seen = { n: 0 };
  setInterval(() => {
    for (const r of server.requests.slice(seen.n)) process.stdout.write(`${r.method} ${r.path} (${r.api})\n`);
    seen.n = server.requests.length;
  }, 200).unref();
}
process.on('SIGINT', () => void server.close().then(() => process.exit(0)));
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
