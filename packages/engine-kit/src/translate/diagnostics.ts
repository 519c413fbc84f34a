/**
 * The codes of harness.warning / harness.error events that every translator writes for the same cause. An
 * adapter's own codes (a native frame it cannot read) are `<adapter>.<what>` and stay with the adapter.
 */
export const DIAGNOSTIC_CODES = {
  /** The engine process exited during the turn (harness frame engine.exited). */
  engineExited: 'engine.exited',
  /** The harness reported an engine failure (harness frame engine.error). */
  engineError: 'engine.error',
  /** A harness frame of a kind this version does not know (a newer writer). */
  unknownHarnessFrame: 'harness.unknown_frame',
  /** A harness frame of a known kind whose fields are missing or of the wrong type. */
  badHarnessFrame: 'harness.bad_frame',
  /** A native frame the lane did not store, replaced by harness frame frame.dropped. */
  frameDropped: 'harness.frame_dropped',
} as const;

export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[keyof typeof DIAGNOSTIC_CODES];

/**
 * Codes earlier versions wrote for the same causes (the built-in engine's `engine_exited` / `engine_error`),
 * still in stored events: a reader maps them with currentDiagnosticCode.
 */
export const LEGACY_DIAGNOSTIC_CODES: Readonly<Record<string, DiagnosticCode>> = {
  engine_exited: DIAGNOSTIC_CODES.engineExited,
  engine_error: DIAGNOSTIC_CODES.engineError,
  'builtin.unknown_harness_frame': DIAGNOSTIC_CODES.unknownHarnessFrame,
};

/** A stored event's code as this version names it (old names mapped, the others as they are). */
export function currentDiagnosticCode(code: string): string {
  return Object.hasOwn(LEGACY_DIAGNOSTIC_CODES, code) ? (LEGACY_DIAGNOSTIC_CODES[code] as string) : code;
}
