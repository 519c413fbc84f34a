// The TypeScript audit ledger as a black box for the Python tests (an op of oracle.mjs):
//   {"db": PATH|postgres://…, "schema"?, "record"?: [AuditableCall…], "list"?: sessionId}
//   → {"inserted"?, "items"?}: what record() and list() (every page) answer. Opening it creates the table.
import { createPgLedger, createSqliteLedger } from '@agentlane/ledger';

export async function ledgerRequest(request) {
  const ledger = request.db.startsWith('postgres')
    ? await createPgLedger({ connection: request.db, schema: request.schema })
    : createSqliteLedger({ database: request.db });
  try {
    const out = {};
    if (request.record) out.inserted = (await ledger.record(request.record)).inserted;
    if (request.list) {
      out.items = [];
      let cursor;
      do {
        const page = await ledger.list(request.list, { limit: 1000, cursor });
        out.items.push(...page.items);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    }
    return out;
  } finally {
    await ledger.close();
  }
}
