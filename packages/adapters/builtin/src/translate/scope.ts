import { idGet, idSet } from '@agentlane/engine-kit';
import type { RuntimeFrame } from '@agentlane/runtime';
import { initialState, newStep, type Step } from './state.js';

const SCOPE_CTX = { threadId: '', turnId: '' };

/**
 * Runs `body` on a sub-agent's own state and moves what it produced into this step: event keys prefixed with
 * the child path, events tagged with the namespace (the path of child session ids), rows and artifacts as is.
 */
export function inScope(step: Step, namespace: string[], body: (sub: Step) => void): void {
  const path = namespace.join('/');
  const sub = newStep(
    idGet(step.state.children, path) ?? initialState(SCOPE_CTX),
    step.frameKey,
    step.receivedAt,
  );
  body(sub);
  step.state = { ...step.state, children: idSet(step.state.children, path, sub.state) };
  for (const e of sub.events) step.events.push({ ...e, key: `child:${path}:${e.key}`, namespace });
  step.artifacts.push(...sub.artifacts);
  step.audit.push(...sub.audit);
}

/**
 * A wrapped sub-agent frame: unwrap every level, remember where its approvals and questions live, then hand
 * the inner frame to `dispatch` in the sub-agent's scope.
 */
export function childFrame(
  step: Step,
  f: Extract<RuntimeFrame, { rt: 'child' }>,
  dispatch: (sub: Step, inner: RuntimeFrame) => void,
): void {
  const namespace: string[] = [];
  let inner: RuntimeFrame = f;
  while (inner.rt === 'child') {
    namespace.push(inner.childSessionId);
    inner = inner.frame;
  }
  const asked =
    inner.rt === 'approval'
      ? `approval:${inner.approvalId}`
      : inner.rt === 'question'
        ? `question:${inner.questionId}`
        : null;
  if (asked) step.state = { ...step.state, scoped: idSet(step.state.scoped, asked, namespace) };
  // The session's model metadata is the parent's; a child's own turn does not restate it.
  if (inner.rt === 'model') return;
  const frameInScope = inner;
  inScope(step, namespace, (sub) => dispatch(sub, frameInScope));
}
