import { describe, expect, it } from 'vitest';
import { createProgress } from '../src/progress';

describe('progress of long commands', () => {
  it('says nothing for work shorter than the interval, then one throttled line per interval and a summary', () => {
    let t = 0;
    const lines: string[] = [];
    const quick = createProgress('agentlane translate', 'frames', {
      write: (l) => lines.push(l),
      now: () => t,
    });
    t = 500;
    quick.update(10, 20);
    quick.finish('20 frames translated');
    expect(lines).toEqual([]);

    const slow = createProgress('agentlane translate', 'frames', {
      write: (l) => lines.push(l),
      now: () => t,
    });
    t = 1600;
    slow.update(120_000, 500_000);
    t = 1900;
    slow.update(130_000, 500_000); // within the interval of the last line: not printed
    t = 2700;
    slow.update(250_000);
    slow.finish('500,000 frames translated');
    expect(lines).toEqual([
      'agentlane translate: 120,000 of 500,000 frames (24%)',
      'agentlane translate: 250,000 frames',
      'agentlane translate: 500,000 frames translated',
    ]);
  });
});
