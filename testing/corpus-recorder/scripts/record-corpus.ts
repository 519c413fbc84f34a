/**
 * Re-records the turn corpus: `npm run record:corpus -w @agentlane/corpus-recorder`. Each scenario runs against the
 * fake model server through a recording proxy, with the injected clock and ids, and is written to
 * test/fixtures/corpus/<name>.json (format: test/fixtures/corpus/README.md). Pass names to record only some.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeModelServer } from '@agentlane/fake-model-server';
import {
  CORPUS_VERSION,
  type CorpusFixture,
  NON_DETERMINISTIC,
  runCorpusTurn,
  startWireRecorder,
} from '../src/index';
import { CORPUS_SCENARIOS } from './corpus-scenarios';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'corpus');
const only = process.argv.slice(2);

await mkdir(out, { recursive: true });
for (const scenario of CORPUS_SCENARIOS) {
  if (only.length > 0 && !only.includes(scenario.name)) continue;
  const fake = await startFakeModelServer({ script: scenario.replies });
  const recorder = await startWireRecorder(fake.url);
  try {
    const record = await runCorpusTurn(scenario.input, recorder.url);
    const fixture: CorpusFixture = {
      corpusVersion: CORPUS_VERSION,
      name: scenario.name,
      input: scenario.input,
      exchanges: recorder.exchanges,
      ...record,
      nonDeterministic: NON_DETERMINISTIC,
    };
    await writeFile(join(out, `${scenario.name}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
    console.log(
      `${scenario.name}: ${record.outcome.outcome}, ${fixture.exchanges.length} model exchanges, ${record.ledgerRows.length} ledger rows, ${record.checkpoints.length} checkpoints, ${record.events.length} events, fingerprint ${record.fingerprint.slice(0, 12)}`,
    );
  } finally {
    await recorder.close();
    await fake.close();
  }
}
