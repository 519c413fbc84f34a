import type { JsonValue } from '@agentlane/contract';
import { leftOpen, translateMeasured } from '@agentlane/engine-kit/testing';
import { describe, expect, it } from 'vitest';
import { acpTranslator } from '../src/index';
import { permissionFlood as flood } from './flood-frames';
import { CTX, records } from './trace';

const translate = (frames: JsonValue[]) => translateMeasured(acpTranslator, records(frames), CTX);

describe('a flood of 2,000 permission requests', () => {
  it('each frame builds a bounded part of the state, not a copy of every open tool, approval and request', () => {
    const big = translate(flood(2000));
    const small = translate(flood(20));
    // Before: every frame copied the maps of open tools, approvals and agent requests, and the audit fold its
    // own two (2,000 requests took 8 s to translate). Now a step copies paths of persistent maps.
    expect(big.maxFresh - small.maxFresh).toBeLessThan(300);
    const count = (kind: string) => big.events.filter((e) => e.draft.kind === kind).length;
    expect(count('approval.requested')).toBe(2000);
    expect(count('approval.resolved')).toBe(2000); // the end of the source cancels each, once
    expect(leftOpen(big.events)).toEqual([]);
  });
});
