import {
  type DiscoveredEngine,
  findCommand,
  isLoopbackUrl,
  isNodeScript,
  urlSecretsOf,
} from '@agentlane/engine-kit';

interface AgentRecipe {
  preset: 'claude-code' | 'codex' | 'gemini' | 'opencode-acp' | 'qwen-code' | 'cline' | 'copilot' | 'pi';
  name: string;
  label: string;
  /** Command names the agent's npm package installs, first found wins. */
  commands: string[];
  /** The preset runs `node <entry>`: the found command must be a Node script (codex-acp is run directly). */
  nodeScript: boolean;
  /** The provider's key variables, first set wins; the key is read from it at run time (`apiKeyEnv`). */
  keys: string[];
  /** The provider's base-URL variable and the public endpoint otherwise (the preset's `modelBaseUrl`, no /v1). */
  baseUrlVar: string;
  defaultBaseUrl: string;
}

// The agents the presets were checked with (see presets.ts), each found by the command its package installs.
const RECIPES: AgentRecipe[] = [
  {
    preset: 'claude-code',
    name: 'claude',
    label: 'Claude Code (ACP)',
    commands: ['claude-agent-acp', 'claude-code-acp'],
    nodeScript: true,
    keys: ['ANTHROPIC_API_KEY'],
    baseUrlVar: 'ANTHROPIC_BASE_URL',
    defaultBaseUrl: 'https://api.anthropic.com',
  },
  {
    preset: 'codex',
    name: 'codex',
    label: 'Codex (ACP)',
    commands: ['codex-acp'],
    nodeScript: false,
    keys: ['OPENAI_API_KEY'],
    baseUrlVar: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com',
  },
  {
    preset: 'gemini',
    name: 'gemini',
    label: 'Gemini CLI (ACP)',
    commands: ['gemini'],
    nodeScript: true,
    keys: ['GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'],
    baseUrlVar: 'GOOGLE_GEMINI_BASE_URL',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
  },
  {
    // OpenCode's own ACP mode, on the OpenAI endpoint (the preset's provider is OpenAI-compatible).
    preset: 'opencode-acp',
    name: 'opencode-acp',
    label: 'OpenCode (ACP)',
    commands: ['opencode'],
    nodeScript: false,
    keys: ['OPENAI_API_KEY'],
    baseUrlVar: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com',
  },
  {
    // Qwen Code on the OpenAI-compatible endpoint (its OpenAI auth type).
    preset: 'qwen-code',
    name: 'qwen',
    label: 'Qwen Code (ACP)',
    commands: ['qwen'],
    nodeScript: true,
    keys: ['OPENAI_API_KEY'],
    baseUrlVar: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com',
  },
  {
    // Cline on its OpenAI-compatible provider; the launcher runs the platform binary.
    preset: 'cline',
    name: 'cline',
    label: 'Cline (ACP)',
    commands: ['cline'],
    nodeScript: false,
    keys: ['OPENAI_API_KEY'],
    baseUrlVar: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com',
  },
  {
    // GitHub Copilot CLI with its own-key (BYOK) OpenAI provider, never a GitHub sign-in.
    preset: 'copilot',
    name: 'copilot',
    label: 'GitHub Copilot CLI (ACP)',
    commands: ['copilot'],
    nodeScript: false,
    keys: ['OPENAI_API_KEY'],
    baseUrlVar: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com',
  },
  {
    // pi through pi-acp (which starts the `pi` on PATH; pi needs Node >= 22.19) on an OpenAI-compatible provider.
    preset: 'pi',
    name: 'pi',
    label: 'pi (ACP)',
    commands: ['pi-acp'],
    nodeScript: true,
    keys: ['OPENAI_API_KEY'],
    baseUrlVar: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com',
  },
];

/**
 * Every ACP agent with a preset that is installed in the project (`node_modules/.bin`) or on PATH and whose
 * provider key variable is set. The entry names the variable (`apiKeyEnv`), never the key; an agent found
 * without its key is not offered, since it could not answer a prompt.
 */
export function discoverEngines(env: NodeJS.ProcessEnv, options: { cwd: string }): DiscoveredEngine[] {
  const found: DiscoveredEngine[] = [];
  for (const r of RECIPES) {
    const command = findCommand(r.commands, env, options.cwd);
    if (!command || (r.nodeScript && !isNodeScript(command.path))) continue;
    const key = r.keys.find((k) => env[k]?.trim());
    if (!key) continue;
    const baseUrl = env[r.baseUrlVar]?.trim();
    const where = command.where === 'project' ? "in the project's node_modules" : 'on PATH';
    // The presets add the API version (/v1) themselves; OPENAI_BASE_URL usually carries it.
    const modelBaseUrl = (baseUrl ?? r.defaultBaseUrl).replace(/\/+$/, '').replace(/\/v1$/, '');
    // A base URL with a password or a key in it is a credential: in memory only, never in the entry
    // `agentlane init` writes to a file.
    const secretUrl = urlSecretsOf(modelBaseUrl).length > 0;
    found.push({
      options: {
        name: r.name,
        label: r.label,
        preset: r.preset,
        entry: command.path,
        ...(secretUrl ? {} : { modelBaseUrl }),
        apiKeyEnv: key,
        // A provider's public endpoint needs the network the engines are otherwise kept from.
        network: isLoopbackUrl(modelBaseUrl) ? 'loopback' : 'open',
      },
      ...(secretUrl
        ? {
            inMemory: { modelBaseUrl },
            notes: [`${r.baseUrlVar} holds credentials: not written; set modelBaseUrl in the entry yourself`],
          }
        : {}),
      why: `${command.name} found ${where}, ${key} is set${baseUrl ? `, ${r.baseUrlVar} names the endpoint` : ''}`,
      env: [key, ...(baseUrl ? [r.baseUrlVar] : [])],
    });
  }
  return found;
}
