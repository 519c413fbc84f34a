import type { NegotiatedCapabilities } from '@agentlane/contract';

/**
 * The built-in engine's static manifest. True only for what this runtime does today: it streams text and
 * reasoning, plans, reports tool progress and diffs, asks for approvals and questions, counts usage, lets the
 * model be picked per session and per run, resumes from checkpoints, and stops on run.cancel. It has no slash
 * commands, no reconcile and no terminal of its own. childSessions is false here; a driver configured with
 * `subagents` (the task tool) reports it true.
 */
export const BUILTIN_CAPABILITIES: NegotiatedCapabilities = {
  streamingText: true,
  reasoning: true,
  plans: true,
  toolProgress: true,
  fileDiffs: true,
  childSessions: false,
  approvals: true,
  questions: true,
  commands: false,
  usage: true,
  modelSelection: true,
  resume: true,
  load: false,
  close: true,
  stop: true,
  reconcile: false,
  directTerminal: false,
  desktop: false,
  nativeEmbed: false,
  knowledgeTools: false,
};
