import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../src/errors';
import { listArguments, listCursor } from '../src/savers/saver-arguments';

describe('list cursors', () => {
  it('reads a cursor only as the saver writes it', () => {
    expect(listArguments({ sessionId: 's', cursor: listCursor('s', 12) }).beforeSeq).toBe(12);
    const tag = listCursor('s', 1).slice(2);
    for (const cursor of ['c12', 'c01', 'c0', 'c+1', 'c', 'c1.0', 'c1234567890123456', 'C1'].flatMap((c) => [
      c,
      c + tag,
    ])) {
      if (cursor === `c12${tag}`) continue;
      expect(() => listArguments({ sessionId: 's', cursor }), cursor).toThrow(CheckpointError);
    }
  });

  it("refuses another session's cursor (it named a position in that session's rows only)", () => {
    expect(() => listArguments({ sessionId: 'b', cursor: listCursor('a', 12) })).toThrow(CheckpointError);
  });
});
