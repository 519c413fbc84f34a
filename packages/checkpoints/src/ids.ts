import { monotonicFactory } from 'ulid';

const next = monotonicFactory();

/** A new checkpoint id: a ULID (the contract's format), increasing within this process. */
export function newCheckpointId(): string {
  return next();
}
