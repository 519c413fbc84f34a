/** Every refusal and read failure of the checkpoint layer carries one of these codes. */
export const CHECKPOINT_ERROR_CODES = [
  'invalid_checkpoint',
  'unknown_channel_kind',
  'unknown_reducer',
  'invalid_channel_value',
  'invalid_update',
  'empty_channel',
  'missing_parent',
  'version_regression',
  'unversioned_change',
  'duplicate_checkpoint',
  'not_found',
  'corrupt_row',
  'invalid_argument',
] as const;
export type CheckpointErrorCode = (typeof CHECKPOINT_ERROR_CODES)[number];

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  constructor(
    readonly code: CheckpointErrorCode,
    message: string,
    /** The checkpoint the error is about, when there is one (always set for `corrupt_row`). */
    readonly checkpointId?: string,
    /** The field or channel at fault, when there is one. */
    readonly field?: string,
  ) {
    super(message);
  }

  toJSON(): { code: CheckpointErrorCode; message: string; checkpointId?: string; field?: string } {
    return {
      code: this.code,
      message: this.message,
      ...(this.checkpointId === undefined ? {} : { checkpointId: this.checkpointId }),
      ...(this.field === undefined ? {} : { field: this.field }),
    };
  }
}

export function isCheckpointError(value: unknown, code?: CheckpointErrorCode): value is CheckpointError {
  return value instanceof CheckpointError && (code === undefined || value.code === code);
}
