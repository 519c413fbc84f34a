import type { CapabilityFlag, JsonObject, NegotiatedCapabilities } from '@agentlane/contract';
import { asObject, isObject, listOf } from '@agentlane/engine-kit';

/**
 * What agentlane, as the ACP client, offered in `initialize` (some flags depend on it) and what the
 * engine's configuration declares it will send. ACP does not advertise thoughts, plans, commands or usage:
 * they are baseline `session/update` variants an agent may or may not send, so for those the engine's
 * configuration says what it was observed to produce (the recorded traces show it).
 */
export interface AcpNegotiationInput {
  /** `InitializeResponse.agentCapabilities`. */
  agentCapabilities: JsonObject | null;
  /** `configOptions` of the session/new|load|resume response (or a later config_option_update). */
  configOptions: JsonObject[];
  /** Whether `session/new` returned `modes`. */
  hasModes: boolean;
  /** Flags the engine's configuration declares from observation (reasoning, plans, commands, usage, fileDiffs). */
  observed: Partial<Record<CapabilityFlag, boolean>>;
  /** Whether agentlane offered `fs.writeTextFile` (then every write passes through us). */
  clientWritesFiles: boolean;
  /** Whether agentlane injects MCP servers into session/new (knowledge tools). */
  injectsMcpServers: boolean;
}

const hasCategory = (options: JsonObject[], category: string) => options.some((o) => o.category === category);

/**
 * The 20 flags for an ACP engine. Each line says how the flag is decided:
 * S = static for every ACP agent, N = negotiated in initialize / the session response,
 * C = depends on what agentlane offers as client, O = declared by the engine's configuration from observation.
 */
export function negotiateAcpCapabilities(input: AcpNegotiationInput): NegotiatedCapabilities {
  const caps = input.agentCapabilities ?? {};
  const session = asObject(caps.sessionCapabilities) ?? {};
  const observed = input.observed;
  // A capability object present (even `{}`) means supported; omitted or null means not.
  const offered = (value: unknown) => isObject(value);
  return {
    // S: agent_message_chunk is a baseline session/update variant.
    streamingText: true,
    // O, or N when the session has a thought-level config option (then the agent reasons by definition).
    reasoning: observed.reasoning === true || hasCategory(input.configOptions, 'thought_level'),
    // O: `plan` is a baseline variant that is never advertised.
    plans: observed.plans === true,
    // S: tool_call_update is baseline.
    toolProgress: true,
    // C when we offer fs.writeTextFile (we see every write); otherwise O (diff content in tool calls).
    fileDiffs: input.clientWritesFiles || observed.fileDiffs === true,
    // Stable ACP v1 has no sub-agents; the unstable subagent_update needs a client capability we do not offer.
    childSessions: false,
    // S: session/request_permission is a baseline client method.
    approvals: true,
    // C: questions need clientCapabilities.elicitation, which agentlane does not offer yet.
    questions: false,
    // O: available_commands_update is baseline and never advertised.
    commands: observed.commands === true,
    // O: usage_update is baseline and never advertised.
    usage: observed.usage === true,
    // N: only when a config option has category "model" (set through session/set_config_option).
    modelSelection: hasCategory(input.configOptions, 'model'),
    // N: sessionCapabilities.resume present.
    resume: offered(session.resume),
    // N: agentCapabilities.loadSession === true.
    load: caps.loadSession === true,
    // N: sessionCapabilities.close present.
    close: offered(session.close),
    // S: session/cancel is a baseline notification every agent must honour.
    stop: true,
    // N: ACP has no "get history" method; reconciling is only possible by a load replay.
    reconcile: caps.loadSession === true,
    // Terminals over ACP are client-owned; there is no direct terminal surface.
    directTerminal: false,
    // Not expressible in ACP.
    desktop: false,
    // Not expressible in ACP (embedding is the client's own UI).
    nativeEmbed: false,
    // C: only when agentlane injects MCP servers into session/new.
    knowledgeTools: input.injectsMcpServers,
  };
}

/** Whether a session response carried modes (either `modes` or a config option of category mode). */
export function responseHasModes(result: JsonObject): boolean {
  return (
    isObject(result.modes) || listOf(result.configOptions).some((o) => isObject(o) && o.category === 'mode')
  );
}
