import { delimiter, dirname } from 'node:path';
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

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function common(options: PresetOptions): Pick<AcpEngineConfig, 'homeRoot' | 'onStderr'> {
  return {
    ...(options.homeRoot ? { homeRoot: options.homeRoot } : {}),
    ...(options.onStderr ? { onStderr: options.onStderr } : {}),
  };
}

/** Claude Code through @zed-industries/claude-agent-acp (Anthropic Messages API). */
export function claudeCodePreset(options: PresetOptions): AcpEngineConfig {
  return {
    name: options.name ?? 'claude',
    label: 'Claude Code (ACP)',
    command: options.node ?? process.execPath,
    args: [options.entry],
    env: {
      CLAUDE_CONFIG_DIR: '{{HOME}}/.claude',
      ANTHROPIC_BASE_URL: options.modelBaseUrl,
      ANTHROPIC_API_KEY: options.apiKey ?? 'dummy',
      ...(options.model ? { ANTHROPIC_MODEL: options.model } : {}),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_BUG_COMMAND: '1',
      CLAUDE_CODE_ENABLE_TELEMETRY: '0',
      DISABLE_NON_ESSENTIAL_MODEL_CALLS: '1',
      // As root the adapter passes --allow-dangerously-skip-permissions, which the CLI refuses unless
      // IS_SANDBOX is exactly "1" (any other inherited value makes session/new fail).
      ...(isRoot() ? { IS_SANDBOX: '1' } : {}),
      ...options.env,
    },
    observed: { reasoning: true, commands: true, usage: true, fileDiffs: true },
    ...common(options),
  };
}

/** Codex through @zed-industries/codex-acp (OpenAI Responses API), asking before every command. */
export function codexPreset(options: PresetOptions): AcpEngineConfig {
  const model = options.model ?? 'gpt-5.5';
  const config = [
    `model = "${model}"`,
    'model_provider = "agentlane"',
    'approval_policy = "untrusted"',
    // workspace-write needs bubblewrap, which is not always installed.
    'sandbox_mode = "danger-full-access"',
    'model_reasoning_summary = "auto"',
    'check_for_update_on_startup = false',
    '[model_providers.agentlane]',
    'name = "agentlane model endpoint"',
    `base_url = "${options.modelBaseUrl.replace(/\/$/, '')}/v1"`,
    'wire_api = "responses"',
    'env_key = "AGENTLANE_MODEL_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'stream_idle_timeout_ms = 30000',
    '[analytics]',
    'enabled = false',
    '[feedback]',
    'enabled = false',
    '[history]',
    'persistence = "none"',
    '[projects."{{WORKDIR}}"]',
    'trust_level = "trusted"',
    '',
  ].join('\n');
  return {
    name: options.name ?? 'codex',
    label: 'Codex (ACP)',
    command: options.entry,
    args: [],
    env: {
      CODEX_HOME: '{{HOME}}/.codex',
      AGENTLANE_MODEL_API_KEY: options.apiKey ?? 'dummy',
      ...options.env,
    },
    homeFiles: { '.codex/config.toml': config },
    observed: { reasoning: true, commands: true, usage: true },
    ...common(options),
  };
}

/**
 * `~/.gemini/settings.json` of Gemini CLI, and `~/.qwen/settings.json` of its fork Qwen Code: the auth type
 * (so no `authenticate` call), the model, and no telemetry, usage statistics, update checks, folder-trust
 * prompt or IDE link; `extra` adds top-level sections.
 */
function geminiFamilySettings(authType: string, model: string, extra: Record<string, unknown> = {}) {
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

/** Gemini CLI in ACP mode (Gemini streamGenerateContent). Client fs is never offered (see driver.ts). */
export function geminiPreset(options: PresetOptions): AcpEngineConfig {
  const settings = geminiFamilySettings('gemini-api-key', options.model ?? 'gemini-2.5-flash');
  return {
    name: options.name ?? 'gemini',
    label: 'Gemini CLI (ACP)',
    command: options.node ?? process.execPath,
    args: [options.entry, '--acp'],
    env: {
      GEMINI_API_KEY: options.apiKey ?? 'dummy',
      GOOGLE_GEMINI_BASE_URL: options.modelBaseUrl,
      GEMINI_CLI_NO_RELAUNCH: 'true',
      NO_BROWSER: '1',
      ACP_CLIENT_FS: '0',
      ...options.env,
    },
    homeFiles: { '.gemini/settings.json': `${JSON.stringify(settings, null, 2)}\n` },
    // usage: the prompt response's `_meta.quota.token_count` (see turn.ts).
    observed: { reasoning: true, commands: true, usage: true, fileDiffs: true },
    ...common(options),
  };
}

/**
 * OpenCode's own ACP mode (`opencode acp`, OpenAI-compatible Chat Completions), beside the HTTP-server
 * adapter. Its config (`OPENCODE_CONFIG`, written into the HOME) names one provider `agentlane` at the
 * endpoint and asks before every edit and shell command; the variables are the ones the OpenCode adapter
 * starts `opencode serve` with (no update checks, sharing, model catalog fetch, LSP downloads or plugins).
 */
export function openCodeAcpPreset(options: PresetOptions): AcpEngineConfig {
  const model = options.model ?? 'gpt-5.5';
  const config = {
    $schema: 'https://opencode.ai/config.json',
    model: `agentlane/${model}`,
    small_model: `agentlane/${model}`,
    enabled_providers: ['agentlane'],
    autoupdate: false,
    share: 'disabled',
    permission: { edit: 'ask', bash: 'ask', webfetch: 'deny' },
    provider: {
      agentlane: {
        npm: '@ai-sdk/openai-compatible',
        name: 'agentlane model endpoint',
        // The key comes from the variable below ({env:…} is OpenCode's config substitution).
        options: {
          baseURL: `${options.modelBaseUrl.replace(/\/$/, '')}/v1`,
          apiKey: '{env:AGENTLANE_MODEL_API_KEY}',
        },
        models: {
          [model]: {
            name: model,
            tool_call: true,
            reasoning: true,
            limit: { context: 128000, output: 8192 },
          },
        },
      },
    },
  };
  return {
    name: options.name ?? 'opencode-acp',
    label: 'OpenCode (ACP)',
    command: options.entry,
    args: ['acp'],
    env: {
      OPENCODE_CONFIG: '{{HOME}}/opencode.json',
      AGENTLANE_MODEL_API_KEY: options.apiKey ?? 'dummy',
      // The OpenCode adapter's QUIET_ENV (server-process.ts): adapters do not import each other.
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_SHARE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_CLAUDE_CODE: '1',
      OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
      DO_NOT_TRACK: '1',
      ...options.env,
    },
    homeFiles: { 'opencode.json': `${JSON.stringify(config, null, 2)}\n` },
    observed: { reasoning: true, commands: true, usage: true, fileDiffs: true },
    ...common(options),
  };
}

/** Base URL of an OpenAI-compatible endpoint with its API version (`…/v1`). */
const v1 = (baseUrl: string) => `${baseUrl.replace(/\/$/, '')}/v1`;

/**
 * Qwen Code in ACP mode (`qwen --acp`, OpenAI-compatible Chat Completions through `OPENAI_BASE_URL`).
 * `~/.qwen/settings.json` selects the OpenAI auth type (no `authenticate` call), asks before every edit
 * and shell command (`tools.approvalMode: "default"`; Qwen's own default, `auto`, lets a classifier
 * approve) and turns telemetry, usage statistics and update checks off.
 */
export function qwenCodePreset(options: PresetOptions): AcpEngineConfig {
  const model = options.model ?? 'gpt-5.5';
  const settings = geminiFamilySettings('openai', model, { tools: { approvalMode: 'default' } });
  return {
    name: options.name ?? 'qwen',
    label: 'Qwen Code (ACP)',
    command: options.node ?? process.execPath,
    args: [options.entry, '--acp'],
    env: {
      OPENAI_API_KEY: options.apiKey ?? 'dummy',
      OPENAI_BASE_URL: v1(options.modelBaseUrl),
      OPENAI_MODEL: model,
      ...options.env,
    },
    homeFiles: { '.qwen/settings.json': `${JSON.stringify(settings, null, 2)}\n` },
    // No usage: it reports tokens only in its message chunks' `_meta.usage`, which ACP does not define.
    observed: { reasoning: true, commands: true, fileDiffs: true },
    ...common(options),
  };
}

/**
 * Cline's ACP mode (`cline --acp`; `entry` is the `cline` launcher or its platform binary) on an
 * OpenAI-compatible provider: `CLINE_API_KEY` stands in for Cline's sign-in, `CLINE_PROVIDER` picks
 * the provider whose base URL `~/.cline/data/settings/providers.json` holds. Every tool asks first (its
 * ACP mode's default). `CLINE_SESSION_BACKEND_MODE=local` keeps sessions in the process: otherwise it
 * starts a detached hub daemon that outlives the engine's process group.
 */
export function clinePreset(options: PresetOptions): AcpEngineConfig {
  const model = options.model ?? 'gpt-5.5';
  const apiKey = options.apiKey ?? 'dummy';
  const providers = {
    version: 1,
    lastUsedProvider: 'openai-compatible',
    modes: {},
    providers: {
      'openai-compatible': {
        settings: { provider: 'openai-compatible', apiKey, model, baseUrl: v1(options.modelBaseUrl) },
        // Without `updatedAt` Cline ignores the entry and calls api.openai.com.
        updatedAt: '2026-01-01T00:00:00.000Z',
        tokenSource: 'manual',
      },
    },
  };
  // The model in Cline's registry of custom models, else it replaces an id missing from its catalog.
  const models = {
    version: 1,
    providers: {
      'openai-compatible': {
        provider: { name: 'OpenAI Compatible', baseUrl: v1(options.modelBaseUrl), defaultModelId: model },
        models: {
          [model]: {
            id: model,
            name: model,
            contextWindow: 128000,
            maxInputTokens: 128000,
            capabilities: ['streaming', 'tools'],
          },
        },
      },
    },
  };
  return {
    name: options.name ?? 'cline',
    label: 'Cline (ACP)',
    command: options.entry,
    args: ['--acp'],
    env: {
      CLINE_PROVIDER: 'openai-compatible',
      CLINE_API_KEY: apiKey,
      CLINE_MODEL: model,
      CLINE_SESSION_BACKEND_MODE: 'local',
      ...options.env,
    },
    homeFiles: {
      '.cline/data/settings/providers.json': `${JSON.stringify(providers, null, 2)}\n`,
      '.cline/data/settings/models.json': `${JSON.stringify(models, null, 2)}\n`,
    },
    // No command catalog, usage or diffs (its apply_patch result is text).
    observed: { reasoning: true },
    ...common(options),
  };
}

/**
 * GitHub Copilot CLI in ACP mode (`copilot --acp`; `entry` is the `copilot` launcher or its platform
 * binary) with its own-key provider (BYOK, `COPILOT_PROVIDER_*`: OpenAI-compatible Chat Completions) and
 * `COPILOT_OFFLINE=true`, which skips GitHub sign-in, telemetry, web tools, the GitHub MCP server and
 * auto-update. It asks before edits and commands by default.
 */
export function copilotPreset(options: PresetOptions): AcpEngineConfig {
  const model = options.model ?? 'gpt-5.5';
  return {
    name: options.name ?? 'copilot',
    label: 'GitHub Copilot CLI (ACP)',
    command: options.entry,
    args: ['--acp'],
    env: {
      COPILOT_HOME: '{{HOME}}/.copilot',
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_BASE_URL: v1(options.modelBaseUrl),
      COPILOT_PROVIDER_API_KEY: options.apiKey ?? 'dummy',
      COPILOT_MODEL: model,
      NO_COLOR: '1',
      ...options.env,
    },
    observed: { reasoning: true, commands: true, usage: true, fileDiffs: true },
    ...common(options),
  };
}

/**
 * A pi extension (`~/.pi/agent/extensions/`) that asks before every write, edit and shell command: pi
 * itself never asks, and pi-acp turns an extension's `ctx.ui.confirm` into `session/request_permission`
 * (options yes = allow_once, no = reject_once). Without a client to ask it blocks the call.
 */
const PI_APPROVALS_EXTENSION = `export default function (pi) {
  pi.on('tool_call', async (event, ctx) => {
    if (!['write', 'edit', 'bash'].includes(event.toolName)) return undefined;
    if (!ctx.hasUI) return { block: true, reason: 'No client to ask for approval' };
    const allowed = await ctx.ui.confirm(\`Allow \${event.toolName}?\`, JSON.stringify(event.input));
    return allowed ? undefined : { block: true, reason: 'Rejected by the user' };
  });
}
`;

/**
 * pi through pi-acp (`entry` is pi-acp's script; it starts `pi --mode rpc`, `agentCommand` or PATH's) on
 * an OpenAI-compatible provider `agentlane` (`~/.pi/agent/models.json`, the key from the environment),
 * asking before writes, edits and commands through the extension above. `PI_OFFLINE` stops model catalog
 * refreshes, version checks and telemetry.
 */
export function piPreset(options: PresetOptions): AcpEngineConfig {
  const model = options.model ?? 'gpt-5.5';
  const models = {
    providers: {
      agentlane: {
        name: 'agentlane model endpoint',
        baseUrl: v1(options.modelBaseUrl),
        api: 'openai-completions',
        apiKey: '$AGENTLANE_MODEL_API_KEY',
        models: [{ id: model, name: model, reasoning: true, contextWindow: 128000, maxTokens: 8192 }],
      },
    },
  };
  const settings = { defaultProvider: 'agentlane', defaultModel: model, quietStartup: true };
  return {
    name: options.name ?? 'pi',
    label: 'pi (ACP)',
    command: options.node ?? process.execPath,
    args: [options.entry],
    env: {
      AGENTLANE_MODEL_API_KEY: options.apiKey ?? 'dummy',
      PI_OFFLINE: '1',
      PI_SKIP_VERSION_CHECK: '1',
      PI_TELEMETRY: '0',
      ...(options.agentCommand ? { PI_ACP_PI_COMMAND: options.agentCommand } : {}),
      // pi's launcher is `#!/usr/bin/env node`: the chosen Node must come first on PATH.
      ...(options.node ? { PATH: `${dirname(options.node)}${delimiter}${process.env.PATH ?? ''}` } : {}),
      ...options.env,
    },
    homeFiles: {
      '.pi/agent/models.json': `${JSON.stringify(models, null, 2)}\n`,
      '.pi/agent/settings.json': `${JSON.stringify(settings, null, 2)}\n`,
      '.pi/agent/extensions/agentlane-approvals.js': PI_APPROVALS_EXTENSION,
    },
    observed: { reasoning: true, commands: true, usage: true, fileDiffs: true },
    ...common(options),
  };
}
