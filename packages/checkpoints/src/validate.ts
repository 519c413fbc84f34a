import {
  type ChannelSnapshot,
  type Checkpoint,
  formatIssues,
  parseCheckpoint as parseContractCheckpoint,
} from '@agentlane/contract';
import { restoreChannel } from './channels/registry.js';
import { CheckpointError } from './errors.js';
import { isPlainObject } from './json.js';

const ENVELOPE_KEYS = new Set([
  'id',
  'sessionId',
  'stageId',
  'createdAt',
  'schemaVersion',
  'channels',
  'parentCheckpointId',
]);
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
/** Ids end up in SQL rows, URLs and logs: keep them printable and bounded. */
const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

function invalid(field: string, why: string): never {
  throw new CheckpointError('invalid_checkpoint', `checkpoint ${field} ${why}`, undefined, field);
}

export function isValidId(value: unknown): value is string {
  return typeof value === 'string' && ID.test(value);
}

/**
 * Checks an untrusted value against the contract's envelope schema and every channel's snapshot shape.
 * A checkpoint that passes round-trips through storage unchanged; anything storage could not keep is
 * refused here. Channel checks run first so an unknown kind is reported as such.
 */
export function parseCheckpoint(value: unknown): Checkpoint {
  if (!isPlainObject(value)) return invalid('body', 'must be a JSON object');
  if (isPlainObject(value.channels)) parseChannels(value.channels);
  const parsed = parseContractCheckpoint(value);
  if (!parsed.ok) {
    const first = parsed.errors[0];
    throw new CheckpointError(
      'invalid_checkpoint',
      `checkpoint does not match the schema: ${formatIssues(parsed.errors).replaceAll('\n', '; ')}`,
      undefined,
      first?.path.replace(/^\$\.?/, '') || 'body',
    );
  }
  const checkpoint = parsed.value;
  for (const key of Object.keys(value)) if (!ENVELOPE_KEYS.has(key)) invalid(key, 'is not an envelope field');
  // A database integer holds it, and every reader reads it back as a number: 2^64 came back as another one.
  if (!Number.isSafeInteger(checkpoint.schemaVersion))
    invalid('schemaVersion', 'must be an integer of at most 2^53 - 1');
  if (!isValidId(checkpoint.sessionId)) {
    invalid('sessionId', 'must be an id string ([A-Za-z0-9._:-], at most 128 chars)');
  }
  if (!ISO_8601.test(checkpoint.createdAt) || Number.isNaN(Date.parse(checkpoint.createdAt))) {
    invalid('createdAt', 'must be an ISO 8601 timestamp');
  }
  if (checkpoint.parentCheckpointId === checkpoint.id)
    invalid('parentCheckpointId', 'cannot be the checkpoint itself');
  return checkpoint;
}

/** Validates a channel map (also used on rows read back from storage). */
export function parseChannels(value: unknown): Record<string, ChannelSnapshot> {
  if (!isPlainObject(value)) return invalid('channels', 'must be an object');
  const out: Record<string, ChannelSnapshot> = {};
  for (const [name, snapshot] of Object.entries(value)) {
    if (name.length === 0 || name.length > 256) invalid(`channels.${name}`, 'name must be 1-256 characters');
    // Assigned into an object, this name set its prototype instead: the channel vanished without an error.
    if (name === '__proto__')
      invalid(`channels.${name}`, 'is not a channel name (JavaScript objects reserve it)');
    if (!isPlainObject(snapshot)) invalid(`channels.${name}`, 'must be an object');
    for (const key of Object.keys(snapshot)) {
      if (key !== 'kind' && key !== 'version' && key !== 'value')
        invalid(`channels.${name}.${key}`, 'is not a snapshot field');
    }
    // Each kind's restore checks that every part of its value is plain JSON; no second walk here.
    if (!Object.hasOwn(snapshot, 'value')) invalid(`channels.${name}.value`, 'must be present');
    const typed = snapshot as unknown as ChannelSnapshot;
    restoreChannel(name, typed);
    out[name] = typed;
  }
  return out;
}
