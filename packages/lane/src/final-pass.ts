import type { AuditableCall } from '@agentlane/contract';
import type { ArtifactStore, EventStore, EventWrite, FramePage, SourceLaneStore } from '@agentlane/store';
import type { PublishHub } from './hub.js';
import { type Materializer, writeDigest } from './offload.js';
import type { BuiltEvent, BuiltStep, RunTranslation } from './run-translation.js';

/** How much of a run the final pass holds at once (tests make it small). */
export interface FinalPassPaging {
  /** Frames read and translated at a time... */
  frames: number;
  /** ...and no more than about this many bytes of their JSON (a frame larger than that comes alone). */
  frameBytes: number;
  /** Stored rows read at a time (only a digest of each is kept). */
  rows: number;
  /** Writes per appendEvents call; the write queue is flushed once it holds this many. */
  batch: number;
  /**
   * How many emissions the first slot of a not-yet-stored eventId may wait in the queue for its last one.
   * An eventId emitted again further away has its end state kept from the scan instead (see writeFinalPass).
   */
  span: number;
}

export const DEFAULT_FINAL_PASS_PAGING: FinalPassPaging = {
  frames: 256,
  frameBytes: 4 * 1024 * 1024,
  rows: 512,
  batch: 256,
  span: 1024,
};

export interface FinalPassInput {
  store: EventStore & SourceLaneStore & ArtifactStore;
  hub: PublishHub;
  threadId: string;
  runId: string;
  /** A translation of the run from its first frame: each pass translates the sealed source again. */
  translation: () => RunTranslation;
  /** What finish() stamps when the source has no frame (one value: both passes must see the same events). */
  endTs: string;
  materializer: Materializer;
  /** Records audit rows; false once the ledger failed (the run's other rows are then not tried). */
  audit: (rows: AuditableCall[]) => Promise<boolean>;
  paging?: Partial<FinalPassPaging>;
}

export interface FinalPassResult {
  /** Rows appended. */
  revised: number;
  /** The most slots (writes, and first slots waiting for their end state) the write queue held at once. */
  peakQueued: number;
  /** End states kept from the scan (eventIds whose first slot could not wait for them). */
  held: number;
}

/** What the scan keeps of an eventId: the ordinals of its first and last emissions in the re-translation. */
interface Facts {
  first: number;
  last: number;
  /** The end state, for an eventId not stored yet whose last emission comes `span` or more after its first. */
  held?: BuiltEvent;
}

/**
 * Writes the re-translation of a sealed source: each eventId once, the content of its LAST emission, only
 * where it differs from the latest stored revision; an eventId not stored yet goes in the slot of its FIRST
 * emission.
 *
 * The final pass writes the end state of the run, not its history again. Intermediate emissions of an
 * eventId (a key revised N times) are working state the live pass already streamed; compared one by one with
 * the latest stored revision (the last of them) each looked new, and the pass re-appended the whole history:
 * readers saw the text go back to its first version and come forward again. Comparing only the last emission
 * with the latest stored revision writes nothing when the live pass stored the end state, and exactly one
 * revision when it did not (a frame it missed, a failed live write, a source rewritten before sealing).
 * Not "the i-th emission against the i-th stored revision": the stored history is no function of the
 * emissions (the live pass drops identical re-emissions, a failed or refused live write leaves a hole, a
 * retried final pass follows one whose writes came from another source), and wherever the two differ,
 * appending the missing intermediate versions after a newer one is the very regression described above.
 *
 * The first emission's slot: readers place an eventId at the first deliverySeq it had (the client's and the
 * web timeline), and pieces in the append form follow their tool's `tool.started`. When the live pass stored
 * nothing of the run (a crash), the rows come in the order the live pass would first have written them
 * (deliverySeq order = seq order). An eventId already stored keeps its place whatever slot its revision has,
 * so its revision is written where its last emission comes.
 *
 * Memory is bounded by a page, not by the run (a run of 200 MB of frames read whole took the server past its
 * heap on every restart): the stored rows are read a page at a time and only a digest of each is kept; the
 * sealed source is translated twice, a page of frames at a time. The scan keeps per eventId the ordinals of
 * its first and last emissions, and stores the artifacts of every emission and the audit rows. The write
 * pass then queues the writes of last emissions in order and appends them a batch at a time; a not-yet-stored
 * eventId emitted again gets an empty slot at its first emission, filled when its last comes, and the queue
 * is flushed only up to the first slot still empty. Such a slot waits fewer than `span` emissions: an eventId
 * whose last emission comes further on (a plan revised through the whole run) has its end state kept by the
 * scan, so it is written at its first slot at once and never holds the queue open for the rest of the run.
 * Why translate twice: which slot an eventId takes and what it holds are known only once its last emission
 * has come, possibly at the end of the run; keeping the emissions until then is the memory this avoids, and
 * a translation is deterministic (the live pass and this one rely on it). What still grows with the run is
 * small: two numbers per eventId, a digest per stored one, and the end states the scan keeps.
 *
 * Rows are appended in several calls now, each published once stored: a pass that fails part way stores a
 * prefix of its writes, each the end state of its eventId, so its retry finds them equal and writes the rest.
 */
export async function writeFinalPass(input: FinalPassInput): Promise<FinalPassResult> {
  const paging = { ...DEFAULT_FINAL_PASS_PAGING, ...input.paging };
  const stored = await storedDigests(input, paging.rows);
  const scanned = await scan(input, paging, stored);
  const queue = new SlotQueue(input, paging.batch);
  const emissions = await writeEmissions(input, paging, stored, scanned.facts, queue);
  await queue.flush(true);
  if (emissions !== scanned.emissions || queue.waiting > 0)
    throw notDeterministic(input.runId, `${emissions} emissions, ${scanned.emissions} in the scan`);
  return { revised: queue.revised, peakQueued: queue.peak, held: scanned.held };
}

/** The digest of the latest stored revision of each eventId of the run. */
async function storedDigests(input: FinalPassInput, limit: number): Promise<Map<string, string>> {
  const digests = new Map<string, string>();
  const query = { threadId: input.threadId, runId: input.runId };
  for (let after = 0; ; ) {
    const rows = await input.store.latestEventsPage(query, after, limit);
    for (const row of rows) digests.set(row.eventId, writeDigest(row));
    const lastRow = rows.at(-1);
    if (!lastRow || rows.length < limit) return digests;
    after = lastRow.deliverySeq;
    // Reads are synchronous on SQLite: a turn for the event loop between pages.
    await yieldToLoop();
  }
}

/** The first pass: the facts of each eventId; the artifacts of every emission and the audit rows stored. */
async function scan(
  input: FinalPassInput,
  paging: FinalPassPaging,
  stored: ReadonlyMap<string, string>,
): Promise<{ facts: Map<string, Facts>; emissions: number; held: number }> {
  const facts = new Map<string, Facts>();
  let n = 0;
  let auditing = true;
  for await (const step of translatedPages(input, paging)) {
    for (const built of step.events) {
      const id = built.event.eventId;
      const f = facts.get(id);
      if (!f) facts.set(id, { first: n, last: n });
      else {
        f.last = n;
        if (n - f.first >= paging.span && !stored.has(id)) f.held = built;
      }
      n++;
    }
    // Rows the live pass wrote may name any emission's artifacts, not only the end state's.
    await input.materializer.storeArtifacts(step.artifacts);
    if (auditing && step.audit && step.audit.length > 0) auditing = await input.audit(step.audit);
  }
  let held = 0;
  for (const f of facts.values()) if (f.held) held++;
  return { facts, emissions: n, held };
}

/** The second pass: each emission placed by the scan's facts; returns how many emissions there were. */
async function writeEmissions(
  input: FinalPassInput,
  paging: FinalPassPaging,
  stored: ReadonlyMap<string, string>,
  facts: Map<string, Facts>,
  queue: SlotQueue,
): Promise<number> {
  // Only what differs from the latest stored revision is written: the final pass makes no needless revisions.
  const changed = async (built: BuiltEvent): Promise<EventWrite[]> =>
    (await input.materializer.materialize(built)).filter((w) => {
      const digest = stored.get(w.event.eventId);
      return digest === undefined || digest !== writeDigest(w);
    });
  let n = 0;
  for await (const step of translatedPages(input, paging)) {
    for (const built of step.events) {
      const at = n++;
      const id = built.event.eventId;
      const f = facts.get(id);
      if (!f) throw notDeterministic(input.runId, `event ${id} was not emitted in the scan`);
      const last = at === f.last;
      if (stored.has(id) || (at === f.first && last)) {
        if (last) queue.push(await changed(built));
      } else if (at === f.first) {
        if (f.held) queue.push(await changed(f.held));
        else queue.open(id);
        delete f.held;
      } else if (last && f.last - f.first < paging.span) queue.fill(id, await changed(built));
      if (queue.writes >= paging.batch) await queue.flush(false);
    }
  }
  return n;
}

/** The sealed source translated a page of frames at a time; the last step is the translation's finish(). */
async function* translatedPages(input: FinalPassInput, paging: FinalPassPaging): AsyncGenerator<BuiltStep> {
  const translation = input.translation();
  const page: FramePage = { limit: paging.frames, maxBytes: paging.frameBytes };
  for (let after = 0; ; ) {
    const next = await translatePage(input, translation, after, page);
    if (!next) break;
    after = next.after;
    yield next.step;
  }
  yield translation.finish(input.endTs);
}

/** One page of frames translated into one step (the frames are not kept: the step is what is used). */
async function translatePage(
  input: FinalPassInput,
  translation: RunTranslation,
  after: number,
  page: FramePage,
): Promise<{ step: BuiltStep; after: number } | null> {
  const frames = await input.store.readFrames(input.runId, after, page);
  const lastFrame = frames.at(-1);
  if (!lastFrame) return null;
  const step: BuiltStep = { events: [], artifacts: [] };
  for (const [i, frame] of frames.entries()) {
    // Reads are synchronous on SQLite, and a re-translation is megabytes of work: the event loop gets a
    // turn after each read and every few frames.
    if (i % 32 === 0) await yieldToLoop();
    translation.pushInto(frame, step);
  }
  return { step, after: lastFrame.nativeSeq };
}

/**
 * The writes of the final pass in the order they are appended: slots leave from the front, a batch at a
 * time, never past a slot still waiting for its eventId's end state.
 */
class SlotQueue {
  revised = 0;
  peak = 0;
  /** Writes in the queue. */
  writes = 0;
  /** undefined: a first slot waiting for its end state. Slots without writes are not queued at all. */
  private readonly slots: (EventWrite[] | undefined)[] = [];
  /** The number (from the start of the pass) of slots[0]. */
  private base = 0;
  /** The slot number each waiting eventId fills. */
  private readonly waitingSlots = new Map<string, number>();

  constructor(
    private readonly input: FinalPassInput,
    private readonly batch: number,
  ) {}

  get waiting(): number {
    return this.waitingSlots.size;
  }

  push(writes: EventWrite[]): void {
    if (writes.length === 0) return;
    this.add(writes);
  }

  open(eventId: string): void {
    this.waitingSlots.set(eventId, this.base + this.slots.length);
    this.add(undefined);
  }

  fill(eventId: string, writes: EventWrite[]): void {
    const at = this.waitingSlots.get(eventId);
    if (at === undefined) throw notDeterministic(this.input.runId, `no slot waits for event ${eventId}`);
    this.waitingSlots.delete(eventId);
    this.slots[at - this.base] = writes;
    this.writes += writes.length;
  }

  /** Appends full batches of the writes before the first waiting slot; `all`: every one of them. */
  async flush(all: boolean): Promise<void> {
    for (;;) {
      const batch: EventWrite[] = [];
      let taken = 0;
      for (const slot of this.slots) {
        if (slot === undefined || batch.length >= this.batch) break;
        batch.push(...slot);
        taken++;
      }
      if (taken === 0 || (!all && batch.length < this.batch)) return;
      this.slots.splice(0, taken);
      this.base += taken;
      this.writes -= batch.length;
      if (batch.length > 0) await this.append(batch);
    }
  }

  private add(slot: EventWrite[] | undefined): void {
    this.slots.push(slot);
    if (slot) this.writes += slot.length;
    if (this.slots.length > this.peak) this.peak = this.slots.length;
  }

  private async append(writes: EventWrite[]): Promise<void> {
    const { store, hub, threadId } = this.input;
    const result = await store.appendEvents(threadId, writes, true);
    this.revised += result.inserted.length;
    // Each batch is published once stored, as the rows of the live pass are.
    hub.publishRows(threadId, result.inserted);
  }
}

function notDeterministic(runId: string, what: string): Error {
  return new Error(
    `the re-translation of run ${runId} differs from its scan (${what}): is its translator deterministic?`,
  );
}

/** Lets the event loop run what is due (I/O, timers) before going on. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
