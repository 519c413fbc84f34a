export { createDriver, type ReplayDriverConfig } from './driver.js';
export { type RecordedSession, recordedSessions } from './recorded-sessions.js';
export { frameTimes, readTrace } from './trace.js';
export { translatorFor, translators } from './translators.js';

import type { EngineDriver } from '@agentlane/engine-kit';
import { createDriver } from './driver.js';
import { recordedSessions } from './recorded-sessions.js';

/** One replay engine per recorded session, ready for a server's engine registry. */
export function recordedSessionDrivers(options: { speed?: number } = {}): EngineDriver[] {
  return recordedSessions().map((session) =>
    createDriver({
      trace: session.trace,
      provider: session.provider,
      name: session.name,
      label: session.label,
      ...(options.speed !== undefined ? { speed: options.speed } : {}),
    }),
  );
}
