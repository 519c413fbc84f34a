import type { ArtifactWithPreview } from '@agentlane/contract';
import { useId, useMemo, useState } from 'react';
import { Diff, Hunk, markEdits, parseDiff, tokenize } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import { parsableDiff } from '../diff-text';
import { LoadFullButton, useArtifactText } from './artifact-body';
import { CopyButton } from './copy-button';

type ViewType = 'unified' | 'split';

function parse(text: string): ReturnType<typeof parseDiff> {
  try {
    return parseDiff(parsableDiff(text), { nearbySequences: 'zip' });
  } catch {
    return [];
  }
}

/** One file of a diff, its changed words marked (react-diff-view's markEdits). */
function FileDiff({ file, viewType }: { file: ReturnType<typeof parseDiff>[number]; viewType: ViewType }) {
  const tokens = useMemo(() => {
    try {
      return tokenize(file.hunks, { enhancers: [markEdits(file.hunks, { type: 'block' })] });
    } catch {
      return undefined;
    }
  }, [file.hunks]);
  return (
    <Diff viewType={viewType} diffType={file.type} hunks={file.hunks} tokens={tokens}>
      {(hunks) => hunks.map((hunk) => <Hunk key={hunk.content} hunk={hunk} />)}
    </Diff>
  );
}

export function RenderedDiff({ text }: { text: string }) {
  const [viewType, setViewType] = useState<ViewType>('unified');
  const name = useId();
  const files = useMemo(() => parse(text), [text]);
  if (files.length === 0 || files.every((f) => f.hunks.length === 0))
    return <pre className="code-block">{text}</pre>;
  return (
    <>
      <div className="diff-tools">
        <fieldset className="segmented">
          <legend className="sr-only">Diff layout</legend>
          {(['unified', 'split'] as const).map((v) => (
            <label key={v}>
              <input type="radio" name={name} checked={viewType === v} onChange={() => setViewType(v)} />
              {v === 'unified' ? 'Unified' : 'Split'}
            </label>
          ))}
        </fieldset>
        <CopyButton text={text} label="Copy diff" />
      </div>
      <div className="diff-files" data-view={viewType}>
        {files.map((file) => (
          <FileDiff key={`${file.oldPath}->${file.newPath}`} file={file} viewType={viewType} />
        ))}
      </div>
    </>
  );
}

/** A file change's or an approval's diff; built only when shown (callers mount it lazily). */
export function DiffBody({ diff }: { diff: ArtifactWithPreview }) {
  const state = useArtifactText(diff);
  return (
    <div className="diff">
      <RenderedDiff text={state.text} />
      <LoadFullButton state={state} label="Load full diff" />
    </div>
  );
}
