import { type JsonObject, parseAuditableCall } from '@agentlane/contract';
import { type FieldRules, fieldProblem, isObject } from '@agentlane/engine-kit';
import type { RuntimeFrame } from '@agentlane/runtime';

const id = { type: 'string', required: true } as const;

/**
 * The fields of each built-in frame that the translator reads before anything checks its output: a frame
 * missing one (or with one of the wrong type) is reported as malformed instead of failing inside a handler.
 * Payload fields it only copies are checked on the way out, against the contract (translator.ts).
 */
const READ: Record<RuntimeFrame['rt'], FieldRules> = {
  stage: {},
  part: { step: { type: 'number', required: true }, part: { type: 'object', required: true } },
  plan: { entries: { type: 'array', required: true } },
  'model.start': { sessionId: id, turnId: id, request: { type: 'object', required: true } },
  'tool.start': { toolCallId: id, name: id },
  'tool.progress': { toolCallId: id },
  'tool.end': { toolCallId: id },
  approval: { approvalId: id, toolCallId: id, diff: { type: 'string' } },
  question: { questionId: id },
  terminal: { terminalId: id },
  file: { toolCallId: id, path: id, diff: id },
  // In memory (`content`, of a tool call) or in an overflow file (`file`; toolCallId absent for model text).
  artifact: {
    toolCallId: { type: 'string' },
    name: id,
    contentType: id,
    content: { type: 'string' },
    file: { type: 'object' },
  },
  usage: { usage: { type: 'object', required: true } },
  marker: {},
  warning: { code: id, message: id },
  model: { model: id, availableModels: { type: 'array', required: true } },
  checkpoint: {},
  audit: { row: { type: 'object', required: true } },
  'child.start': { childSessionId: id },
  child: { childSessionId: id, frame: { type: 'object', required: true } },
  'child.state': { childSessionId: id },
  'child.end': { childSessionId: id },
};

/**
 * Why a built-in frame (one with a string `rt`) cannot be translated, or null. A sub-agent's wrapped frame is
 * checked at every level; an `rt` this version does not know is not a problem here (it becomes
 * builtin.unknown_frame).
 */
export function runtimeFrameProblem(frame: JsonObject): string | null {
  let current: JsonObject = frame;
  for (let depth = 0; depth < 64; depth++) {
    const rt = current.rt;
    if (typeof rt !== 'string') return 'no rt';
    if (!Object.hasOwn(READ, rt)) return null;
    const problem = fieldProblem(current, READ[rt as RuntimeFrame['rt']]);
    if (problem) return `${rt}: ${problem}`;
    if (rt === 'artifact' && current.file === undefined) {
      if (typeof current.content !== 'string') return 'artifact: no content and no file';
      if (typeof current.toolCallId !== 'string') return 'artifact: no toolCallId';
    }
    if (rt === 'audit') {
      const row = parseAuditableCall(current.row);
      return row.ok ? null : 'audit: a row outside the contract';
    }
    if (rt !== 'child') return null;
    const inner = current.frame;
    if (!isObject(inner)) return 'child: no frame';
    current = inner;
  }
  return 'child: nested too deep';
}
