import { delimiter } from 'node:path';

/**
 * This machine's environment with none of the provider variables and no node_modules/.bin on PATH (npm puts
 * the project's there), plus `extra`: `agentlane serve` then finds only the engines a test sets up.
 */
export function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env))
    if (/^(OPENAI|ANTHROPIC|GEMINI|GOOGLE_GENERATIVE_AI|GOOGLE_GEMINI)_/.test(key)) delete env[key];
  env.PATH = (env.PATH ?? '')
    .split(delimiter)
    .filter((d) => !d.includes('node_modules'))
    .join(delimiter);
  return { ...env, ...extra };
}
