import type { ToolKind } from '@agentlane/contract';

const KINDS: readonly ToolKind[] = [
  'read',
  'edit',
  'delete',
  'move',
  'search',
  'execute',
  'think',
  'fetch',
  'switch_mode',
  'other',
];

/** ACP's ToolKind is the canonical one; anything unknown is `other`. */
export function toolKind(value: unknown): ToolKind {
  return KINDS.includes(value as ToolKind) ? (value as ToolKind) : 'other';
}
