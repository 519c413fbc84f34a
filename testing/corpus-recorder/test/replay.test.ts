import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fingerprintSessionState, parseAuditableCall, parseCheckpoint } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import {
  CORPUS_VERSION,
  type CorpusFixture,
  comparableEvent,
  comparableRow,
  ledgerKey,
  NON_DETERMINISTIC,
  runCorpusTurn,
  startWireReplayer,
} from '../src/index';

// Regenerate with `npm run record:corpus -w @agentlane/corpus-recorder` after an intended change of behaviour.
const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'corpus');
const fixtures: CorpusFixture[] = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as CorpusFixture);

describe('the recorded-turn corpus', () => {
  it('holds the required turns, each well-formed and self-consistent', () => {
    expect(fixtures.map((f) => f.name)).toEqual(
      expect.arrayContaining([
        'plain-answer',
        'plan-write-approval',
        'tool-error-bad-input',
        'multi-step-loop',
      ]),
    );
    for (const f of fixtures) {
      expect(f.corpusVersion, f.name).toBe(CORPUS_VERSION);
      expect(f.nonDeterministic, f.name).toEqual(NON_DETERMINISTIC);
      for (const row of f.ledgerRows)
        expect(parseAuditableCall(row).ok, `${f.name} ${ledgerKey(row)}`).toBe(true);
      for (const cp of f.checkpoints) expect(parseCheckpoint(cp).ok, `${f.name} ${cp.id}`).toBe(true);
      // A runtime in another language checks its canonical JSON against this too.
      expect(fingerprintSessionState(f.sessionState), f.name).toBe(f.fingerprint);
    }
  });
});

describe.each(fixtures.map((f) => [f.name, f] as const))('replaying %s', (_name, fixture) => {
  it('gives the same requests, ledger rows, checkpoints, events and SessionState fingerprint', async () => {
    const replayer = await startWireReplayer(fixture.exchanges);
    try {
      const replay = await runCorpusTurn(fixture.input, replayer.url);
      // The runtime sent the recorded requests, no more and no fewer.
      expect(replayer.mismatches).toEqual([]);
      expect(replayer.served()).toBe(fixture.exchanges.length);
      expect(replay.outcome).toEqual(fixture.outcome);

      // Same row sequence under the same idempotency keys, equal columns except the declared timing.
      expect(replay.ledgerRows.map(ledgerKey)).toEqual(fixture.ledgerRows.map(ledgerKey));
      expect(replay.ledgerRows.map(comparableRow)).toEqual(fixture.ledgerRows.map(comparableRow));

      expect(replay.events.map((e) => `${e.kind} ${e.key}`)).toEqual(
        fixture.events.map((e) => `${e.kind} ${e.key}`),
      );
      expect(replay.events.map(comparableEvent)).toEqual(fixture.events.map(comparableEvent));

      expect(replay.checkpoints).toEqual(fixture.checkpoints);
      expect(replay.sessionState).toEqual(fixture.sessionState);
      expect(replay.fingerprint).toBe(fixture.fingerprint);
    } finally {
      await replayer.close();
    }
  });
});
