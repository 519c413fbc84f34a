import {
  type CanonicalStreamEvent,
  type ForkedFrom,
  type JsonObject,
  STAGE_IDS,
  type StreamEvent,
} from '@agentlane/contract';
import type { AgentlaneClient } from './http-client.js';
import { isCanonicalType } from './stream-event.js';

const STAGES: ReadonlySet<string> = new Set(STAGE_IDS);

/**
 * The fork a thread continues, from its session's `metadata.forkedFrom` (what `POST /sessions/:id/fork`
 * wrote); undefined for a thread that is not a fork, or whose record is not one (metadata is anyone's).
 */
export function forkedFromOf(metadata: JsonObject | undefined): ForkedFrom | undefined {
  const value = metadata?.['forkedFrom'];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { threadId, checkpointId, stageId, at, runId, headSeq } = value;
  if (typeof threadId !== 'string' || typeof at !== 'string') return;
  if (checkpointId !== undefined && typeof checkpointId !== 'string') return;
  if (typeof stageId !== 'string' || !STAGES.has(stageId) || Number.isNaN(Date.parse(at))) return;
  if (typeof headSeq !== 'number' || !Number.isInteger(headSeq) || headSeq < 0) return;
  if (runId !== null && typeof runId !== 'string') return;
  return {
    threadId,
    ...(checkpointId !== undefined ? { checkpointId } : {}),
    stageId: stageId as ForkedFrom['stageId'],
    at,
    runId,
    headSeq,
  };
}

/**
 * Whether one of the origin's delivered events is part of the history the fork continues (the rule of the
 * contract's ForkedFrom): delivered by the time of the fork, and first received at or before the checkpoint
 * was taken (its `ts`, which every revision keeps) or, after a turn's last checkpoint, of that turn's run.
 */
export function inForkHistory(event: StreamEvent, fork: ForkedFrom): event is CanonicalStreamEvent {
  if (!isCanonicalType(event.type) || !('deliverySeq' in event) || !('event' in event)) return false;
  if (event.deliverySeq > fork.headSeq) return false;
  if (fork.stageId === 'post-turn' && fork.runId !== null && event.event.runId === fork.runId) return true;
  return Date.parse(event.event.ts) <= Date.parse(fork.at);
}

/**
 * The origin's events a fork continues, in delivery order: its thread stream read from the start to the
 * head it had when forked (or its head now, when it has fewer rows), then closed.
 */
export async function readForkHistory(
  client: AgentlaneClient,
  fork: ForkedFrom,
  signal?: AbortSignal,
): Promise<CanonicalStreamEvent[]> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  const history: CanonicalStreamEvent[] = [];
  let end = fork.headSeq;
  try {
    for await (const event of client.subscribeThread(fork.threadId, { signal: controller.signal })) {
      if (event.type === 'stream.opened') {
        end = Math.min(end, event.headDeliverySeq);
        if (end <= 0) break;
      } else if (isCanonicalType(event.type) && 'deliverySeq' in event && event.deliverySeq !== undefined) {
        if (inForkHistory(event, fork)) history.push(event);
        if (event.deliverySeq >= end) break;
      }
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    controller.abort();
  }
  return history;
}
