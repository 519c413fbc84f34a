import type { ArtifactWithPreview } from '@agentlane/contract';
import { Diff, Hunk, parseDiff } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import { LoadFullButton, useArtifactText } from './artifact-body';

function UnifiedDiff({ text }: { text: string }) {
  let files: ReturnType<typeof parseDiff>;
  try {
    files = parseDiff(text, { nearbySequences: 'zip' });
  } catch {
    files = [];
  }
  if (files.length === 0 || files.every((f) => f.hunks.length === 0))
    return <pre className="code-block">{text}</pre>;
  return (
    <>
      {files.map((file) => (
        <Diff
          key={`${file.oldPath}->${file.newPath}`}
          viewType="unified"
          diffType={file.type}
          hunks={file.hunks}
        >
          {(hunks) => hunks.map((hunk) => <Hunk key={hunk.content} hunk={hunk} />)}
        </Diff>
      ))}
    </>
  );
}

/** A file change's diff; built only when the card is expanded (the caller mounts this lazily). */
export function DiffBody({ diff }: { diff: ArtifactWithPreview }) {
  const state = useArtifactText(diff);
  return (
    <div className="diff">
      <UnifiedDiff text={state.text} />
      <LoadFullButton state={state} label="Load full diff" />
    </div>
  );
}
