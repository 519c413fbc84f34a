/**
 * The 20 capability flags negotiated at session start (ACP negotiates; other engines report a static
 * manifest) and persisted with the session. The UI gates every surface on these, never on an engine name.
 */
export const CAPABILITY_FLAGS = [
  // streaming and structure
  'streamingText',
  'reasoning',
  'plans',
  'toolProgress',
  'fileDiffs',
  // delegation
  'childSessions',
  // interaction
  'approvals',
  'questions',
  'commands',
  // accounting and choice
  'usage',
  'modelSelection',
  // session lifecycle
  'resume',
  'load',
  'close',
  'stop',
  'reconcile',
  // runtime surfaces
  'directTerminal',
  'desktop',
  'nativeEmbed',
  'knowledgeTools',
] as const;

export type CapabilityFlag = (typeof CAPABILITY_FLAGS)[number];

export type NegotiatedCapabilities = Record<CapabilityFlag, boolean>;

/**
 * Reads a capability map from anything. A missing or non-boolean flag becomes false, so an absent capability
 * reads as an honestly omitted surface rather than a broken one. Never throws.
 */
export function normalizeNegotiatedCapabilities(value: unknown): NegotiatedCapabilities {
  const source = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const result = {} as NegotiatedCapabilities;
  for (const flag of CAPABILITY_FLAGS) {
    let flagValue: unknown;
    try {
      flagValue = source[flag];
    } catch {
      flagValue = undefined;
    }
    result[flag] = flagValue === true;
  }
  return result;
}

/** A map with every flag false: the honest default for an engine that has told us nothing. */
export function noCapabilities(): NegotiatedCapabilities {
  return normalizeNegotiatedCapabilities({});
}
