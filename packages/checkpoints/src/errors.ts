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

/** HTTP status per code, so routes map errors in one place. */
export const CHECKPOINT_ERROR_STATUS: Record<CheckpointErrorCode, number> = {
  invalid_checkpoint: 400,
  unknown_channel_kind: 400,
  unknown_reducer: 400,
  invalid_channel_value: 400,
  invalid_update: 400,
  empty_channel: 409,
  missing_parent: 409,
  version_regression: 409,
  unversioned_change: 409,
  duplicate_checkpoint: 409,
  not_found: 404,
  corrupt_row: 500,
  invalid_argument: 400,
};

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
