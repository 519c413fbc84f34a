import type { JsonValue, TerminalStream, ToolKind } from '@agentlane/contract';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { SpoolRedaction } from './output-spool.js';

/** What a tool's `execute` gets besides its input. */
export interface ToolContext {
  /** Aborted by run.cancel (and by the tool's own timeout, when it has one). */
  signal: AbortSignal;
  /** The session's workspace folder; workspace tools never leave it. */
  workspace: string;
  /**
   * The workspace's real path, pinned by the runtime before the session's first tool call: the workspace
   * tools work under it and refuse to run once `workspace` no longer resolves to it (the folder was replaced,
   * e.g. by a link out of the workspace). Absent (a context made by hand): `workspace`'s real path per call.
   */
  workspaceRoot?: string;
  /** Values that must never reach a command's environment (the model's API key): run_command drops them. */
  secrets?: readonly string[];
  toolCallId: string;
  /** A tool.progress line. */
  progress(message: string): void;
  /**
   * A terminal.output chunk; pass `exit` on the last one. False: not shown, the turn's output bound is reached
   * (`turnOutputBytes`); the tool keeps the rest elsewhere (run_command: its overflow file).
   */
  terminal(chunk: {
    terminalId: string;
    stream: TerminalStream;
    chunk: string;
    command?: string;
    exit?: { code: number | null; signal?: string | null };
  }): boolean;
  /**
   * How a terminal's output that goes to a file instead of terminal() is redacted (run_command's past its
   * bound): by the same streams as its chunks, so a secret split across the bound is replaced whole. Absent
   * (a context made by hand): the tool redacts the file on its own.
   */
  terminalFile?(terminalId: string): SpoolRedaction;
  /** A file.changed with its unified diff (stored as an artifact). */
  fileChanged(change: {
    path: string;
    change: 'created' | 'modified' | 'deleted';
    diff: string;
    additions: number;
    deletions: number;
  }): void;
  /**
   * An artifact the tool made (a report, an image, a large output): stored content-addressed and announced
   * with artifact.created and a bounded preview; `deliver` also hands it to the user (artifact.delivered).
   * Content too large for memory is passed as a `file` the tool wrote (its size and sha256): the lane stores
   * it streamed from the file, which must stay as it is until the run ends.
   */
  artifact(
    artifact: {
      name: string;
      contentType: string;
      description?: string;
      deliver?: boolean;
    } & (
      | { content: string | Uint8Array }
      | { file: { path: string; bytes: number; sha256: string }; preview?: string }
    ),
  ): void;
  /** Asks the user (question.requested → question.resolved); resolves with the answer. */
  ask(question: {
    prompt: string;
    choices?: { id: string; label: string }[];
    multiple?: boolean;
    allowFreeText?: boolean;
  }): Promise<{ outcome: 'answered' | 'declined' | 'cancelled'; choiceIds?: string[]; text?: string }>;
}

/** What an approval card shows for one call of a tool that needs approval. */
export interface ApprovalAsk {
  title: string;
  subject: { kind: 'tool_call' | 'command' | 'file_edit' | 'other'; command?: string; path?: string };
  /** A unified diff of the change, when the tool can compute it before running. */
  diff?: string;
}

export interface ToolDefinition<I = unknown> {
  name: string;
  description: string;
  /** A TypeBox schema (which is JSON Schema): sent to the model, and checked before `execute`. */
  inputSchema: TSchema;
  kind?: ToolKind;
  /** true, or a function deciding per input (and describing the card). Default false. */
  needsApproval?:
    | boolean
    | ((
        input: I,
        ctx: { workspace: string; workspaceRoot?: string },
      ) => ApprovalAsk | null | Promise<ApprovalAsk | null>);
  execute(input: I, ctx: ToolContext): Promise<JsonValue>;
}

export interface DefinedTool<I = unknown> extends ToolDefinition<I> {
  /** The validation errors of an input, empty when it is valid. */
  check(input: unknown): string[];
}

export function defineTool<I>(definition: ToolDefinition<I>): DefinedTool<I> {
  const compiled = Compile(definition.inputSchema);
  return {
    ...definition,
    check(input: unknown): string[] {
      if (compiled.Check(input)) return [];
      return [...compiled.Errors(input)].map((e) => `${e.instancePath || '/'} ${e.message}`);
    },
  };
}

/** Thrown by a tool for an error the model should read (not a crash of the harness). */
export class ToolError extends Error {}
