import type {
  ApprovalSubject,
  AuditAuthMethod,
  AuditableCall,
  ChildState,
  ContextMarkerPayload,
  FileChangeKind,
  JsonObject,
  JsonValue,
  ModelCallPayload,
  PlanEntry,
  QuestionChoice,
  StageId,
  TerminalStream,
  ToolKind,
  UsageCost,
  UsageUpdatedPayload,
} from '@agentlane/contract';

/**
 * The built-in engine's native frames, as stored in a run's source lane. `part` frames carry AI SDK stream
 * parts (made JSON-safe); the rest are the runtime's own records of stages, tools, approvals and audit rows.
 * Every frame is plain JSON so the pure translator can rebuild the run from the sealed source.
 */
export type RuntimeFrame =
  | { rt: 'stage'; stage: StageId; phase: 'start' | 'end'; status?: 'ok' | 'error' | 'cancelled' }
  /** `cost` (from the configured price table) only on a finish-step part. */
  | { rt: 'part'; stage: StageId; step: number; part: JsonObject; cost?: UsageCost }
  | { rt: 'plan'; entries: PlanEntry[] }
  /** A model call begins (every stage): what its ledger row needs should the process die before it ends. */
  | {
      rt: 'model.start';
      /** The ledger key's session and turn (a sub-agent's own). */
      sessionId: string;
      turnId: string;
      stage: StageId;
      step: number;
      provider: string;
      model: string;
      transport: string;
      authMethod: AuditAuthMethod;
      request: ModelCallPayload['request'];
    }
  | {
      rt: 'tool.start';
      toolCallId: string;
      name: string;
      kind: ToolKind;
      input: JsonValue;
      title?: string;
    }
  | { rt: 'tool.progress'; toolCallId: string; message: string }
  | {
      rt: 'tool.end';
      toolCallId: string;
      status: 'completed' | 'failed' | 'cancelled';
      output?: JsonValue;
      error?: string;
      durationMs: number;
    }
  | {
      rt: 'approval';
      approvalId: string;
      toolCallId: string;
      title: string;
      subject: ApprovalSubject;
      input: JsonValue;
      diff?: string;
    }
  | {
      rt: 'question';
      questionId: string;
      toolCallId: string;
      prompt: string;
      choices: QuestionChoice[];
      multiple: boolean;
      allowFreeText: boolean;
    }
  | {
      rt: 'terminal';
      toolCallId: string;
      terminalId: string;
      stream: TerminalStream;
      chunk: string;
      command?: string;
      exit?: { code: number | null; signal?: string | null };
    }
  | {
      rt: 'file';
      toolCallId: string;
      path: string;
      change: FileChangeKind;
      diff: string;
      additions: number;
      deletions: number;
    }
  /** An artifact a tool made; `content` is text, or base64 of bytes when `encoding` says so. */
  | {
      rt: 'artifact';
      toolCallId: string;
      name: string;
      contentType: string;
      content: string;
      encoding?: 'base64';
      description?: string;
      deliver?: boolean;
    }
  /**
   * Output past a bound, in an overflow file (never in the frame): the lane stores the file as the artifact
   * `sha256-<sha256>`; `toolCallId` names the call it came from (absent: the turn's model text).
   */
  | {
      rt: 'artifact';
      toolCallId?: string;
      name: string;
      contentType: string;
      file: { path: string; bytes: number; sha256: string };
      preview?: string;
      description?: string;
      deliver?: boolean;
    }
  | { rt: 'usage'; usage: UsageUpdatedPayload }
  | { rt: 'marker'; marker: ContextMarkerPayload }
  | { rt: 'warning'; code: string; message: string; detail?: JsonValue }
  | { rt: 'model'; model: string; availableModels: string[] }
  | { rt: 'checkpoint'; stage: StageId; checkpointId: string }
  | { rt: 'audit'; row: AuditableCall }
  /** A sub-agent (task tool) started in this scope: its own session id and run id. */
  | {
      rt: 'child.start';
      childSessionId: string;
      childRunId: string;
      parentToolCallId: string;
      title?: string;
      description?: string;
    }
  | { rt: 'child.state'; childSessionId: string; state: ChildState; summary?: string }
  | {
      rt: 'child.end';
      childSessionId: string;
      status: 'completed' | 'failed' | 'cancelled';
      summary?: string;
    }
  /** A frame of a sub-agent's own turn, wrapped once per level (the translator tags it with the namespace). */
  | { rt: 'child'; childSessionId: string; frame: RuntimeFrame };

export function frame(f: RuntimeFrame): JsonValue {
  return f as unknown as JsonValue;
}
