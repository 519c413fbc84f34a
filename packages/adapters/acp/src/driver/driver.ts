import type { EngineDriver } from '@agentlane/engine-kit';
import { createAcpTranslator } from '../translate/translator.js';
import type { AcpEngineConfig } from './config.js';
import { parseAcpEngineOptions } from './config-schema.js';
import { forkAcpSession } from './fork.js';
import { AcpSession } from './session.js';

/**
 * A driver for any ACP agent command: it owns one engine process per open session. Accepts a typed config
 * or, from agentlane's config file, untrusted options (checked, with errors naming the field).
 */
export function createDriver(input: AcpEngineConfig | Record<string, unknown>): EngineDriver {
  // Everything is checked; only the stderr callback (code-only) passes around the schema.
  const { onStderr, ...options } = input as AcpEngineConfig;
  const config = parseAcpEngineOptions(options);
  if (typeof onStderr === 'function') config.onStderr = onStderr;
  const provider = config.provider ?? 'acp';
  return {
    name: config.name,
    provider,
    label: config.label ?? `${config.name} (ACP)`,
    translator: createAcpTranslator({ provider, ...(config.observed ? { observed: config.observed } : {}) }),
    openSession: (options) => AcpSession.open(config, provider, options),
    forkSession: (request) => forkAcpSession(config, request),
  };
}
