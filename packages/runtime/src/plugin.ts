import type { ContextMarkerPayload, StageId } from '@agentlane/contract';
import type { DefinedTool } from './tools/define-tool.js';

export interface PluginTurnContext {
  threadId: string;
  turnId: string;
  prompt: string;
  workspace: string;
}

/**
 * The place for consumer-specific behaviour (memory, rules, skills...): the runtime and the contract stay
 * generic. Every hook is optional; a hook that throws becomes a harness.warning, never a failed turn.
 */
export interface HarnessPlugin {
  name: string;
  onStageStart?(stage: StageId, ctx: PluginTurnContext): void | Promise<void>;
  onStageEnd?(stage: StageId, ctx: PluginTurnContext): void | Promise<void>;
  /** Extra system context for the next model call. */
  beforeModelCall?(
    ctx: PluginTurnContext & { stage: StageId },
  ): string | undefined | Promise<string | undefined>;
  /** Tools this plugin adds to the session. */
  tools?(): DefinedTool[];
  /** What the plugin records about the finished turn; each marker becomes a context.marker event. */
  afterTurn?(
    ctx: PluginTurnContext & { answer: string },
  ): ContextMarkerPayload[] | undefined | Promise<ContextMarkerPayload[] | undefined>;
}
