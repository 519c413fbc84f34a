import type { CheckpointSaver } from '@agentlane/checkpoints';
import type { ConversationMessage, PlanEntry } from '@agentlane/contract';
import type { LanguageModel } from 'ai';
import type { TurnBudget } from '../budget.js';
import type { HttpObservation, ModelSettings } from '../model.js';
import type { OutputBounds } from '../output-bound.js';
import type { HarnessPlugin } from '../plugin.js';
import type { PriceTable } from '../prices.js';
import type { Spend } from '../spend.js';
import type { SubagentSettings } from '../subagent.js';
import type { DefinedTool } from '../tools/define-tool.js';
import type { SavedChannels } from './checkpoint-channels.js';

/** What a turn runs with: the driver's settings, the session's memory, the injected clock and ids. */
export interface TurnDeps {
  threadId: string;
  workspace: string;
  settings: ModelSettings;
  /**
   * Other values the host knows to be secret (its bearer tokens, other engines' keys, a database password):
   * kept out of what the engine keeps of a turn, checkpoints included, as the lane keeps them out of events.
   */
  knownSecrets?: readonly string[];
  tools: DefinedTool[];
  plugins: HarnessPlugin[];
  saver: CheckpointSaver | undefined;
  plan: boolean;
  maxSteps: number;
  /** Per-turn token / cost limits of the tool loop (sub-agents' spending included); absent: none. */
  budget?: TurnBudget;
  /** Where the turn adds up what it spends; a sub-agent's turn gets its own, which the parent then adds. */
  spend?: Spend;
  systemPrompt: string;
  clock: () => string;
  ids: () => string;
  /** The session's conversation so far (loaded from the latest checkpoint on the first turn). */
  session: SessionMemory;
  /** Model id → price per 1M tokens; the run's model absent from it: no cost fields. */
  prices?: PriceTable;
  /** Sub-agents: the `task` tool is offered while depth < maxDepth. Absent: no task tool. */
  subagents?: SubagentSettings;
  /** Terminal output and tool results shown per turn (default 8 MB); past it they go to overflow files. */
  turnOutputBytes?: number;
  /** Model text per turn, one tool result, where overflow files go (DEFAULT_OUTPUT_BOUNDS). */
  outputBounds?: Partial<OutputBounds>;
  /** Prefix of approval and question ids (a child's never collide with its parent's). */
  scope?: string;
  /** Deltas of one block read in one turn of the event loop become one frame (default true; see DeltaCoalescer). */
  coalesceDeltas?: boolean;
  /** Test seam: build the model (default: the AI SDK provider with an observing fetch). */
  modelFactory?: (settings: ModelSettings, observe: (o: HttpObservation) => void) => LanguageModel;
}

/** What an engine session keeps between its turns (and reloads from the latest checkpoint). */
export interface SessionMemory {
  loaded: boolean;
  conversation: ConversationMessage[];
  plan: PlanEntry[];
  checkpointId: string | undefined;
  /** What the last checkpoint written or loaded holds (undefined before the session's first). */
  saved: SavedChannels | undefined;
}
