import type { AcpEngineConfig } from './config.js';
import { common, geminiFamilySettings, isRoot, type PresetOptions } from './preset-common.js';

export type { PresetOptions } from './preset-common.js';

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

// The OpenAI-compatible agents (Qwen Code, Cline, Copilot CLI, pi) live in presets-openai-compatible.ts.
export { clinePreset, copilotPreset, piPreset, qwenCodePreset } from './presets-openai-compatible.js';
