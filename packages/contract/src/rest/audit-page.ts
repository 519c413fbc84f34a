import type { AuditableCall } from '../audit.js';

/** `GET /sessions/:id/audit`: one page of the session's audit rows, oldest first. */
export interface AuditPage {
  calls: AuditableCall[];
  nextCursor: string | null;
}
