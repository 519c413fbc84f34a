import { MAX_PREVIEW_CHARS } from '@agentlane/contract';
import { makeArtifact } from '@agentlane/engine-kit';
import type { FrameHandlers, FrameOf } from './frame-types.js';
import type { Step } from './state.js';

/** What tools produce besides their result: changed files and artifacts. */
export const OUTPUT_FRAMES: FrameHandlers<'file' | 'artifact'> = {
  file: (step, f) => {
    const diff = makeArtifact(f.diff, 'text/x-diff');
    step.artifacts.push(diff.stored);
    step.emit(`file.changed:${f.toolCallId}:${f.path}`, {
      kind: 'file.changed',
      payload: {
        path: f.path,
        change: f.change,
        toolCallId: f.toolCallId,
        diff: diff.withPreview,
        additions: f.additions,
        deletions: f.deletions,
      },
    });
  },
  artifact: (step, f) => {
    if ('file' in f) fileArtifact(step, f);
    else inlineArtifact(step, f);
  },
};

function inlineArtifact(step: Step, f: Exclude<FrameOf<'artifact'>, { file: unknown }>): void {
  const made = makeArtifact(
    f.encoding === 'base64' ? Buffer.from(f.content, 'base64') : f.content,
    f.contentType,
  );
  step.artifacts.push(made.stored);
  const key = `${f.toolCallId}:${made.stored.ref.id}:${f.name}`;
  step.emit(`artifact.created:${key}`, {
    kind: 'artifact.created',
    payload: {
      artifact: made.stored.ref,
      name: f.name,
      preview: made.withPreview.preview,
      toolCallId: f.toolCallId,
    },
  });
  if (f.deliver) {
    step.emit(`artifact.delivered:${key}`, {
      kind: 'artifact.delivered',
      payload: {
        artifact: made.stored.ref,
        name: f.name,
        ...(f.description !== undefined ? { description: f.description } : {}),
      },
    });
  }
}

const SHA256 = /^[0-9a-f]{64}$/;

/** Output past a bound, in an engine-local file: the lane stores it from the file; the event names it. */
function fileArtifact(step: Step, f: Extract<FrameOf<'artifact'>, { file: unknown }>): void {
  const { path, bytes, sha256 } = f.file;
  if (typeof path !== 'string' || !Number.isSafeInteger(bytes) || bytes < 0 || !SHA256.test(String(sha256)))
    throw new Error('artifact.file needs a path, a byte count and a sha256');
  const ref = { id: `sha256-${sha256}`, bytes, sha256, contentType: f.contentType };
  step.artifacts.push({ ref, file: path });
  const key = `${f.toolCallId ?? 'turn'}:${ref.id}:${f.name}`;
  step.emit(`artifact.created:${key}`, {
    kind: 'artifact.created',
    payload: {
      artifact: ref,
      name: f.name,
      ...(f.preview !== undefined ? { preview: f.preview.slice(0, MAX_PREVIEW_CHARS) } : {}),
      ...(f.toolCallId !== undefined ? { toolCallId: f.toolCallId } : {}),
    },
  });
  if (f.deliver)
    step.emit(`artifact.delivered:${key}`, {
      kind: 'artifact.delivered',
      payload: {
        artifact: ref,
        name: f.name,
        ...(f.description !== undefined ? { description: f.description } : {}),
      },
    });
}
