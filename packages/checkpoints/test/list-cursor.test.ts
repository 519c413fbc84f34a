import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../src/errors';
import { listArguments } from '../src/savers/saver-arguments';

describe('list cursors', () => {
  it('reads a cursor only as the saver writes it', () => {
    expect(listArguments({ sessionId: 's', cursor: 'c12' }).beforeSeq).toBe(12);
    for (const cursor of ['c01', 'c0', 'c+1', 'c', 'c1.0', 'c1234567890123456', 'C1']) {
      expect(() => listArguments({ sessionId: 's', cursor }), cursor).toThrow(CheckpointError);
    }
  });
});
