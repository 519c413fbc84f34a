import { DeltaCheckpointSaver, type DeltaSaverOptions } from './delta-saver';
import { MemoryRows } from './memory-rows';

/** In-process saver for tests and embedding; same delta format and semantics as the SQL savers. */
export function createMemorySaver(options: DeltaSaverOptions = {}): DeltaCheckpointSaver {
  return new DeltaCheckpointSaver(new MemoryRows(), options);
}
