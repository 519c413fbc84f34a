import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { AcpEngineConfig } from './config.js';
import {
  claudeCodePreset,
  clinePreset,
  codexPreset,
  copilotPreset,
  geminiPreset,
  openCodeAcpPreset,
  type PresetOptions,
  piPreset,
  qwenCodePreset,
} from './presets.js';

const Observed = Type.Record(Type.String(), Type.Boolean());

/** An engine entry from agentlane's config file: either a preset or a raw command. */
const AcpEngineOptions = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    label: Type.Optional(Type.String()),
    provider: Type.Optional(Type.String({ minLength: 1 })),
    /** A known engine recipe (presets.ts); then `entry` and `modelBaseUrl` say where the agent and the model are. */
    preset: Type.Optional(
      Type.Union([
        Type.Literal('claude-code'),
        Type.Literal('codex'),
        Type.Literal('gemini'),
        Type.Literal('opencode-acp'),
        Type.Literal('qwen-code'),
        Type.Literal('cline'),
        Type.Literal('copilot'),
        Type.Literal('pi'),
      ]),
    ),
    entry: Type.Optional(Type.String({ minLength: 1 })),
    modelBaseUrl: Type.Optional(Type.String({ minLength: 1 })),
    model: Type.Optional(Type.String({ minLength: 1 })),
    /** With a preset of a Node-script engine: the Node binary that runs it (pi needs Node >= 22.19). */
    node: Type.Optional(Type.String({ minLength: 1 })),
    /** With the pi preset: the `pi` command pi-acp starts (else the one on PATH). */
    agentCommand: Type.Optional(Type.String({ minLength: 1 })),
    /** The name of an environment variable of agentlane holding the model API key (the key never sits in the file). */
    apiKeyEnv: Type.Optional(Type.String({ minLength: 1 })),
    command: Type.Optional(Type.String({ minLength: 1 })),
    args: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(Type.Record(Type.String(), Type.String())),
    homeFiles: Type.Optional(Type.Record(Type.String(), Type.String())),
    homeRoot: Type.Optional(Type.String({ minLength: 1 })),
    network: Type.Optional(Type.Union([Type.Literal('loopback'), Type.Literal('open')])),
    observed: Type.Optional(Observed),
    startTimeoutMs: Type.Optional(Type.Integer({ minimum: 1000 })),
    /** Permission requests of one session waiting for the user at once (request-ledger.ts); the rest are cancelled. */
    maxPendingPermissions: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  },
  { additionalProperties: false },
);
export type AcpEngineOptions = Static<typeof AcpEngineOptions>;

const check = Compile(AcpEngineOptions);

const PRESETS = {
  'claude-code': claudeCodePreset,
  codex: codexPreset,
  gemini: geminiPreset,
  'opencode-acp': openCodeAcpPreset,
  'qwen-code': qwenCodePreset,
  cline: clinePreset,
  copilot: copilotPreset,
  pi: piPreset,
} as const;

/**
 * Reads an ACP engine entry from untrusted configuration. A bad entry throws an Error naming the field,
 * never a crash later inside the engine process.
 */
export function parseAcpEngineOptions(value: unknown): AcpEngineConfig {
  if (!check.Check(value)) {
    const first = [...check.Errors(value)][0];
    const where = first?.instancePath ? first.instancePath.replace(/^\//, '').replace(/\//g, '.') : 'options';
    throw new Error(`invalid ACP engine options: ${where}: ${first?.message ?? 'invalid'}`);
  }
  const o = value;
  const apiKey = o.apiKeyEnv ? process.env[o.apiKeyEnv] : undefined;
  if (o.apiKeyEnv && !apiKey)
    throw new Error(`invalid ACP engine options: apiKeyEnv: ${o.apiKeyEnv} is not set`);
  let config: AcpEngineConfig;
  if (o.preset) {
    if (!o.entry) throw new Error('invalid ACP engine options: entry: required with a preset');
    if (!o.modelBaseUrl) throw new Error('invalid ACP engine options: modelBaseUrl: required with a preset');
    const options: PresetOptions = {
      name: o.name,
      entry: o.entry,
      modelBaseUrl: o.modelBaseUrl,
      ...(apiKey ? { apiKey } : {}),
      ...(o.model ? { model: o.model } : {}),
      ...(o.node ? { node: o.node } : {}),
      ...(o.agentCommand ? { agentCommand: o.agentCommand } : {}),
      ...(o.env ? { env: o.env } : {}),
    };
    config = PRESETS[o.preset](options);
  } else {
    if (!o.command) throw new Error('invalid ACP engine options: command: required without a preset');
    config = { name: o.name, command: o.command };
    if (o.args) config.args = o.args;
    if (o.env) config.env = o.env;
  }
  if (o.label) config.label = o.label;
  if (o.provider) config.provider = o.provider;
  if (o.homeFiles) config.homeFiles = { ...config.homeFiles, ...o.homeFiles };
  if (o.homeRoot) config.homeRoot = o.homeRoot;
  if (o.network) config.network = o.network;
  if (o.observed) config.observed = { ...config.observed, ...o.observed };
  if (o.startTimeoutMs) config.startTimeoutMs = o.startTimeoutMs;
  if (o.maxPendingPermissions) config.maxPendingPermissions = o.maxPendingPermissions;
  return config;
}
