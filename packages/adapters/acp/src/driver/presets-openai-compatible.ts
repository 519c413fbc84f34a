import { delimiter, dirname } from 'node:path';
import type { AcpEngineConfig } from './config.js';
import { common, geminiFamilySettings, type PresetOptions } from './preset-common.js';

/**
 * Launch recipes for the ACP agents that speak to an OpenAI-compatible endpoint (Qwen Code, Cline, GitHub
 * Copilot CLI with its own-key provider, pi through pi-acp): each one's settings files and variables that point
 * it at the model and keep it offline apart from loopback.
 */
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
