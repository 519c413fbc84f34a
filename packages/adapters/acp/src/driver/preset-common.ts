import type { AcpEngineConfig } from './config.js';

/**
 * Launch recipes for the ACP engines agentlane was checked with (see research/engines.md): the variables
 * and config files that point each at a model endpoint, switch off telemetry and update checks, and keep
 * it offline apart from loopback. The harness adds the temp HOME and the deny-all proxy itself.
 */
export interface PresetOptions {
  /** Configured engine name (defaults to the preset's). */
  name?: string;
  /** Path of the agent's entry script (Node engines) or binary (Codex). */
  entry: string;
  /** Base URL of the model API, e.g. http://127.0.0.1:18082 (no /v1). */
  modelBaseUrl: string;
  /** API key for the model endpoint; a dummy works for a local fake. Never logged. */
  apiKey?: string;
  /** Model id to ask for. */
  model?: string;
  homeRoot?: string;
  /**
   * The Node binary that runs a Node-script engine (default: the one running agentlane). pi needs
   * Node >= 22.19; its directory also goes first on the engine's PATH, for the scripts the engine starts.
   */
  node?: string;
  /** For an adapter that starts the agent itself (pi-acp starts `pi`): the agent's command, else PATH's. */
  agentCommand?: string;
  env?: Record<string, string>;
  onStderr?(chunk: string): void;
}

export const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

export function common(options: PresetOptions): Pick<AcpEngineConfig, 'homeRoot' | 'onStderr'> {
  return {
    ...(options.homeRoot ? { homeRoot: options.homeRoot } : {}),
    ...(options.onStderr ? { onStderr: options.onStderr } : {}),
  };
}

/**
 * `~/.gemini/settings.json` of Gemini CLI, and `~/.qwen/settings.json` of its fork Qwen Code: the auth type
 * (so no `authenticate` call), the model, and no telemetry, usage statistics, update checks, folder-trust
 * prompt or IDE link; `extra` adds top-level sections.
 */
export function geminiFamilySettings(authType: string, model: string, extra: Record<string, unknown> = {}) {
  return {
    security: { auth: { selectedType: authType }, folderTrust: { enabled: false } },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: {
      disableAutoUpdate: true,
      disableUpdateNag: true,
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
    },
    model: { name: model },
    ide: { enabled: false },
    ...extra,
  };
}
