import { describe, expect, it } from 'vitest';
import { artifactRefsOf } from '../src/index';

const id = `sha256-${'a'.repeat(64)}`;

describe('artifactRefsOf', () => {
  it('finds an ArtifactRef where the contract puts one, with its path', () => {
    expect(artifactRefsOf({ kind: 'artifact.created', payload: { artifact: { id } } })).toEqual([
      { path: 'payload.artifact.id', id },
    ]);
    expect(
      artifactRefsOf({ kind: 'tool.completed', payload: { outputArtifact: { artifact: { id } } } }),
    ).toEqual([{ path: 'payload.outputArtifact.artifact.id', id }]);
    expect(artifactRefsOf({ kind: 'approval.requested', payload: { diff: { artifact: { id } } } })).toEqual([
      { path: 'payload.diff.artifact.id', id },
    ]);
  });

  it('takes the same id anywhere else for content, not a reference', () => {
    expect(artifactRefsOf({ kind: 'tool.started', payload: { input: { artifact: { id } } } })).toEqual([]);
    expect(artifactRefsOf({ kind: 'tool.completed', payload: { output: { artifact: { id } } } })).toEqual([]);
    expect(artifactRefsOf({ kind: 'artifact.created', payload: { artifact: { id: 5 } } })).toEqual([]);
    expect(artifactRefsOf({ kind: 'artifact.created', payload: null })).toEqual([]);
    expect(artifactRefsOf({})).toEqual([]);
  });
});
