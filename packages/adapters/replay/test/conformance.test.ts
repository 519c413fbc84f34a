import { basename } from 'node:path';
import { describeTranslatorConformance } from '@agentlane/engine-kit/testing';
import { readTrace, recordedSessions, translatorFor } from '../src';

// The replay engine plays its shipped recordings through the translator each one names: the suite runs on
// those recordings, per translator.
const sessions = recordedSessions();
for (const provider of [...new Set(sessions.map((s) => s.provider))]) {
  describeTranslatorConformance({
    name: `replay (${provider})`,
    translator: translatorFor(provider),
    recordings: sessions
      .filter((s) => s.provider === provider)
      .map((s) => ({ name: basename(s.trace), frames: readTrace(s.trace) })),
  });
}
