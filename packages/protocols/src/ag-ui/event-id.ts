import { HttpError } from '@agentlane/server';

/** Where an AG-UI frame sits: the snapshot row it was streamed after, the row it came from, its index there. */
export interface StreamPosition {
  snapshotAt: number;
  row: number;
  index: number;
}

/** `Last-Event-ID: <snapshot>-<row>-<index>` of a frame this server sent; absent means a fresh stream. */
export function parseEventId(header: string | undefined): StreamPosition | undefined {
  if (header === undefined) return undefined;
  // Numbers as this server writes them (no sign, no leading zeros): another spelling is no id it sent.
  const match = /^(0|[1-9]\d{0,14})-(0|[1-9]\d{0,14})-(0|[1-9]\d{0,14})$/.exec(header.trim());
  if (!match) {
    throw new HttpError(
      'invalid_request',
      'Last-Event-ID must be the id of a frame of this stream (<snapshot>-<row>-<index>)',
      'headers.last-event-id',
    );
  }
  return { snapshotAt: Number(match[1]), row: Number(match[2]), index: Number(match[3]) };
}
