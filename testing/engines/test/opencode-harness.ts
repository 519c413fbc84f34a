import { resolveOpenCodeBinary } from '@agentlane/adapter-opencode';

/** The binary, or why the OpenCode tests cannot run here (in CI a missing binary fails instead). */
export function openCodeBinaryOrReason(): { binary?: string; reason?: string } {
  try {
    return { binary: resolveOpenCodeBinary() };
  } catch (error) {
    if (process.env.CI === 'true') throw error;
    return { reason: (error as Error).message };
  }
}
