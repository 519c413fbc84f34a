import type { FileChangeKind, JsonObject } from '@agentlane/contract';
import { asArray, asNumber, asObject, asString, isBase64 } from '@agentlane/engine-kit';
import { makeArtifact } from './artifacts.js';
import { entriesOf, entryOf, putEntry } from './state.js';
import type { Step } from './step.js';

/**
 * File changes. The same path is reported by several frames (file.edited, the tool's completion, the
 * watcher, session.diff): the first report owns an event key and later ones revise it only with new facts.
 */

type FilePayload = {
  path: string;
  change: FileChangeKind;
  toolCallId?: string;
  diff?: ReturnType<typeof makeArtifact>['withPreview'];
  additions?: number;
  deletions?: number;
};

export function relativePath(out: Step, file: string): string {
  const dir = out.state.directory;
  if (dir && file.startsWith(`${dir}/`)) return file.slice(dir.length + 1);
  return file;
}

export function emitFileChange(out: Step, payload: FilePayload, key: string): void {
  const json = JSON.stringify(payload);
  const known = entryOf(out.state, 'files', payload.path);
  if (known && known.key === key && known.json === json) return;
  putEntry(out.state, 'files', payload.path, { key, json });
  out.emit(key, { kind: 'file.changed', payload });
}

/** A write/edit tool finished: the authoritative report of its file, with the diff when OpenCode gave one. */
export function fileChangeFromTool(
  out: Step,
  toolCallId: string,
  name: string,
  input: JsonObject | undefined,
  metadata: JsonObject | undefined,
): void {
  const file = asString(metadata?.filepath) ?? asString(input?.filePath);
  if (!file) return;
  const path = relativePath(out, file);
  const payload: FilePayload = {
    path,
    change: name === 'write' && metadata?.exists === false ? 'created' : 'modified',
    toolCallId,
  };
  const diff = asString(metadata?.diff);
  if (diff) {
    const artifact = makeArtifact(diff, 'text/x-diff');
    out.addArtifact(artifact.stored);
    payload.diff = artifact.withPreview;
  }
  const filediff = asObject(metadata?.filediff);
  const additions = asNumber(filediff?.additions);
  const deletions = asNumber(filediff?.deletions);
  if (additions !== undefined) payload.additions = additions;
  if (deletions !== undefined) payload.deletions = deletions;
  emitFileChange(out, payload, `file.changed:${toolCallId}:${path}`);
}

/** file.edited: if a running file tool is writing this path, its completion will report it; else report now. */
export function onFileEdited(out: Step, props: JsonObject): void {
  const file = asString(props.file);
  if (!file) return;
  const path = relativePath(out, file);
  const tool = entriesOf(out.state, 'openTools').find(([callId]) => {
    const t = entryOf(out.state, 'tools', callId);
    if (!t || t.done || !t.started) return false;
    const input = asObject(JSON.parse(t.inputJson || 'null'));
    const target = asString(input?.filePath);
    return target !== undefined && relativePath(out, target) === path;
  });
  if (tool) {
    if (!entryOf(out.state, 'files', path))
      putEntry(out.state, 'files', path, { key: `file.changed:${tool[0]}:${path}`, json: '' });
    return;
  }
  if (entryOf(out.state, 'files', path)) return;
  emitFileChange(out, { path, change: 'modified' }, `file.changed:edited:${out.frameKey}:${path}`);
}

const WATCH_CHANGES: Record<string, FileChangeKind> = {
  add: 'created',
  change: 'modified',
  unlink: 'deleted',
};

/** The watcher also sees edits made outside the agent; a path already reported is not reported again. */
export function onWatcherUpdated(out: Step, props: JsonObject): void {
  const file = asString(props.file);
  const change = WATCH_CHANGES[asString(props.event) ?? ''];
  if (!file || !change) return;
  const path = relativePath(out, file);
  if (entryOf(out.state, 'files', path)) return;
  emitFileChange(out, { path, change }, `file.changed:watcher:${out.frameKey}:${path}`);
}

const DIFF_STATUS: Record<string, FileChangeKind> = {
  added: 'created',
  deleted: 'deleted',
  modified: 'modified',
};

/** session.diff is a cumulative snapshot: it adds line counts to reported files and reports the others. */
export function onSessionDiff(out: Step, props: JsonObject): void {
  for (const entry of asArray(props.diff) ?? []) {
    const diff = asObject(entry);
    const file = asString(diff?.file);
    if (!diff || !file) continue;
    const path = relativePath(out, file);
    const known = entryOf(out.state, 'files', path);
    const previous = (known?.json ? JSON.parse(known.json) : { path, change: 'modified' }) as FilePayload;
    const status = DIFF_STATUS[asString(diff.status) ?? ''];
    const payload: FilePayload = { ...previous };
    if (!known && status) payload.change = status;
    const additions = asNumber(diff.additions);
    const deletions = asNumber(diff.deletions);
    if (additions !== undefined) payload.additions = additions;
    if (deletions !== undefined) payload.deletions = deletions;
    const patch = asString(diff.patch);
    if (patch && !payload.diff) {
      const artifact = makeArtifact(patch, 'text/x-diff');
      out.addArtifact(artifact.stored);
      payload.diff = artifact.withPreview;
    }
    emitFileChange(out, payload, known?.key ?? `file.changed:diff:${path}`);
  }
}

/** A patch part lists the files a step changed (paths only). */
export function onPatchPart(out: Step, part: JsonObject): void {
  for (const entry of asArray(part.files) ?? []) {
    const file = asString(entry);
    if (!file) continue;
    const path = relativePath(out, file);
    if (entryOf(out.state, 'files', path)) continue;
    emitFileChange(out, { path, change: 'modified' }, `file.changed:patch:${path}`);
  }
}

/** A file part on an assistant message, or a tool attachment: an artifact (data: URLs carry the bytes). */
export function fileArtifact(
  out: Step,
  key: string,
  part: JsonObject,
  link: { toolCallId?: string; messageId?: string },
): void {
  const url = asString(part.url);
  if (!url) return;
  const mime = asString(part.mime) ?? 'application/octet-stream';
  const match = /^data:([^;,]*)(;base64)?,(.*)$/s.exec(url);
  const content = match
    ? match[2]
      ? new Uint8Array(Buffer.from(match[3] ?? '', 'base64'))
      : decodeURIComponent(match[3] ?? '')
    : url;
  // Buffer skips what is not base64: the artifact holds what it decoded, and the warning says it is garbage.
  if (match?.[2] && !isBase64(match[3] ?? '')) {
    out.warn('opencode.file_data_invalid', 'a file whose data: URL is not base64', {
      ...link,
      dataLength: (match[3] ?? '').length,
    });
  }
  const artifact = makeArtifact(content, match ? mime : 'text/uri-list');
  out.addArtifact(artifact.stored);
  const payload: { artifact: typeof artifact.stored.ref; name?: string; preview?: string } & typeof link = {
    artifact: artifact.stored.ref,
    ...link,
  };
  const name = asString(part.filename);
  if (name) payload.name = name;
  if (typeof content === 'string') payload.preview = artifact.withPreview.preview;
  out.emit(key, { kind: 'artifact.created', payload });
}
