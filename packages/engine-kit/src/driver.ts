import type { JsonObject, JsonValue, NegotiatedCapabilities, ProviderId } from '@agentlane/contract';
import type { ForkSessionRequest } from './fork.js';
import type { Translator } from './translator.js';

/** What the store keeps of a live engine session so a later process can reattach (load/resume) to it. */
export interface SessionBinding {
  provider: ProviderId;
  nativeSessionId: string | null;
  /** How to reach the runtime again (process command, server URL, ...); never secrets. */
  runtimeBinding: JsonObject;
  protocolVersion: string;
  capabilities: NegotiatedCapabilities;
}

/** A native frame's bytes exactly as they crossed the engine's wire (text is stored as its UTF-8). */
export type RawFrame = string | Uint8Array;

export interface ApprovalAnswer {
  outcome: 'selected' | 'cancelled';
  optionId?: string;
  answeredBy?: string;
}

export interface QuestionAnswer {
  outcome: 'answered' | 'declined' | 'cancelled';
  choiceIds?: string[];
  text?: string;
  answeredBy?: string;
}

export interface TurnInput {
  threadId: string;
  runId: string;
  turnId: string;
  prompt: string;
  parentRunId?: string;
  /** A model id the user picked (only when modelSelection is true). */
  model?: string;
  mode?: string;
}

/** What a running turn can do with the harness. Everything it emits is stored before it is translated. */
export interface TurnIO {
  /**
   * Appends one frame (native or harness) to the run's source lane, in call order. `raw`: the frame as the
   * engine's wire carried it (an ACP JSON-RPC line, an SSE `data:` text), kept in the store's bounded raw
   * sidecar next to the parsed frame; harness frames have none.
   */
  emit(frame: JsonValue, raw?: RawFrame): void;
  /**
   * Resolves once every frame emitted so far is stored in the source lane; rejects when storing failed (the
   * run then fails). For a driver that must not acknowledge frames to their sender before they are durable.
   */
  stored?(): Promise<void>;
  /** Aborted by run.cancel. */
  signal: AbortSignal;
  /** Resolves when the answer, written to the store through the API, reaches this process. */
  awaitApproval(approvalId: string): Promise<ApprovalAnswer>;
  awaitQuestion(questionId: string): Promise<QuestionAnswer>;
}

export interface TurnOutcome {
  outcome: 'completed' | 'failed' | 'cancelled';
  error?: string;
}

export interface EngineSession {
  readonly binding: SessionBinding;
  runTurn(turn: TurnInput, io: TurnIO): Promise<TurnOutcome>;
  close(): Promise<void>;
  /**
   * False once the engine behind the session is gone (its process exited between turns). The lane then
   * reopens the session, from its persisted binding, before the next turn instead of failing that turn.
   * Sessions without a process of their own leave it out.
   */
  isAlive?(): boolean;
}

export interface OpenSessionOptions {
  threadId: string;
  workDir: string;
  /** The binding a previous process persisted, to load or resume the same native session. */
  previous?: SessionBinding;
  /** The session's generation after this open (incremented by the caller when the binding changes). */
  generation: number;
  /** Extra frames to record while opening (initialize/session responses) go to the first run's source lane. */
  emit(frame: JsonValue, raw?: RawFrame): void;
}

/** One configured engine: how to start or reattach its sessions, and the translator of its frames. */
export interface EngineDriver {
  /** The name this engine is configured under (e.g. "claude", "opencode", "builtin"). */
  readonly name: string;
  readonly provider: ProviderId;
  readonly translator: Translator;
  /** A short human label for pickers, e.g. "Replay of a recorded session". */
  readonly label: string;
  /**
   * What the engine can do before any session negotiated it, for an engine whose manifest is static (the
   * built-in engine); absent where only a session's handshake says (ACP agents, OpenCode).
   */
  readonly staticCapabilities?: NegotiatedCapabilities;
  openSession(options: OpenSessionOptions): Promise<EngineSession>;
  /**
   * Forks a thread's native session at a point (time travel for engines that keep their own state) and
   * returns the binding a new thread starts from: its first openSession gets it as `previous` and continues
   * the fork. Absent where the engine cannot fork; throws ForkRefusedError where it cannot at that point.
   */
  forkSession?(request: ForkSessionRequest): Promise<SessionBinding>;
  /**
   * The lane stores a large string (64 K characters or more) that this engine's frames repeat once per run;
   * later frames name it (see the lane's shared-strings/resolve.ts). For an engine whose own frames repeat
   * large values (the built-in engine's tool input); readers of the frames API see the stored form.
   */
  readonly shareLargeStrings?: boolean;
}
