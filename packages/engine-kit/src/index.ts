export { makeArtifact } from './artifact.js';
export {
  ENGINE_AUDIT_STAGE,
  type EngineAuditOptions,
  type EngineAuditState,
  initialEngineAuditState,
  type ToolSeen,
  type TurnSeen,
  type UsageSeen,
} from './audit/audit-state.js';
export { auditEngineEvents, type EngineAuditStep } from './audit/engine-audit.js';
export { auditKey, deterministicUlid } from './audit/record-id.js';
export type {
  ApprovalAnswer,
  EngineDriver,
  EngineSession,
  OpenSessionOptions,
  QuestionAnswer,
  RawFrame,
  SessionBinding,
  TurnInput,
  TurnIO,
  TurnOutcome,
} from './driver.js';
export {
  createExternalDriver,
  DEFAULT_EXTERNAL_IDLE_MS,
  DEFAULT_EXTERNAL_OPEN_WAIT_MS,
  type ExternalAccept,
  type ExternalDriverOptions,
  type ExternalTurns,
  externalTurnsOf,
} from './external/external-driver.js';
export {
  type AuditableCall,
  type CanonicalEventDraft,
  checkExternalAudit,
  checkExternalEvent,
  type ExternalEventDraft,
  type ExternalFrame,
  type FrameIssue,
} from './external/external-frames.js';
export { EXTERNAL_PROVIDER, externalTranslator } from './external/external-translator.js';
export { type DiscoveredEngine, type FoundCommand, findCommand, isNodeScript } from './find-command.js';
export { ForkRefusedError, type ForkSessionRequest, isForkRefused, type NativeForkPoint } from './fork.js';
export { type HarnessFrame, isHarnessFrame } from './harness-frame.js';
export { isLoopbackUrl } from './loopback.js';
export type { NativeFrameRecord } from './native-frame.js';
export {
  emptyIdMap,
  type IdMap,
  idDelete,
  idEntries,
  idGet,
  idHas,
  idKeys,
  idSet,
} from './persistent/id-map.js';
export { stepOwnership } from './persistent/step-ownership.js';
export { MAX_HEADER_HELD } from './redaction/redacted.js';
export {
  MIN_SECRET_CHARS,
  PROVIDER_KEY_VARIABLES,
  REDACTED,
  SECRET_VARIABLE,
  SecretRedactor,
  secretsFromEnv,
  urlSecretsOf,
} from './redaction/secret-redactor.js';
export { type ContinuedValue, SplitFieldRedactor } from './redaction/split-fields.js';
export { MIN_HELD } from './redaction/stream-redactor.js';
export {
  type DenyAllProxy,
  type ProxyAttempt,
  sharedDenyAllProxy,
  startDenyAllProxy,
} from './sandbox/deny-proxy.js';
export {
  type OwnedProcess,
  type ProcessExit,
  type SpawnOwnedOptions,
  spawnOwned,
  startLifeline,
} from './sandbox/owned-process.js';
export { type SandboxEnvOptions, sandboxEnv } from './sandbox/sandbox-env.js';
export { createEngineHome, type EngineHome } from './sandbox/temp-home.js';
export {
  type SkippedSseBlock,
  type SseBlock,
  SseBlockSplitter,
  type SseBlockSplitterOptions,
} from './sse/sse-block-splitter.js';
export {
  currentDiagnosticCode,
  DIAGNOSTIC_CODES,
  type DiagnosticCode,
  LEGACY_DIAGNOSTIC_CODES,
} from './translate/diagnostics.js';
export { translateGuarded } from './translate/guard.js';
export {
  dispatchHarnessFrame,
  engineErrorPayload,
  engineExitedError,
  type FieldRule,
  type FieldRules,
  type FieldType,
  fieldProblem,
  type HarnessFrameOf,
  type HarnessHandlers,
  type HarnessKind,
  turnStartedPayload,
  type Warns,
  warnFrameDropped,
} from './translate/harness.js';
export {
  asArray,
  asBoolean,
  asNumber,
  asObject,
  asString,
  compact,
  isBase64,
  isObject,
  jsonKey,
  listOf,
  rpcId,
  stringOrEmpty,
} from './translate/narrow.js';
export {
  type EventIdentity,
  FINISH_FRAME_KEY,
  finishStep,
  frameKey,
  StepBuilder,
  type StepOptions,
} from './translate/step.js';
export { openTurnOnce, type TurnTracked } from './translate/turn.js';
export { withAudit } from './translate/with-audit.js';
export type {
  ArtifactContent,
  TranslatedEvent,
  TranslationContext,
  TranslationStep,
  Translator,
} from './translator.js';
