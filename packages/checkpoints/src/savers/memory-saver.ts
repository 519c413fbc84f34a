import { DeltaCheckpointSaver, type DeltaSaverOptions } from './delta-saver.js';
import { MemoryRows } from './memory-rows.js';

/** In-process saver for tests and embedding; same delta format and semantics as the SQL savers. */
export function createMemorySaver(options: DeltaSaverOptions = {}): DeltaCheckpointSaver {
  return new DeltaCheckpointSaver(new MemoryRows(), options);
}
