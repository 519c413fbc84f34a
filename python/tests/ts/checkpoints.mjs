// The TypeScript checkpoint savers as a black box for the Python tests (an op of oracle.mjs):
//   {"op": "put", "db": PATH|postgres://…, "schema"?, "fullEvery"?, "items": [{"checkpoint", "namespace"?}]}
//     → the saver's put results
//   {"op": "read", "db": …, "schema"?, "refs": [[sessionId, checkpointId], …]}
//     → {canonical, fingerprint} of every hydrated envelope (a read with no refs just creates the tables)
import { createPgSaver, createSqliteSaver, fingerprintCheckpoint } from '@agentlane/checkpoints';
import { canonicalJson } from '@agentlane/contract';

export async function saverRequest(request) {
  const fullSnapshotEvery = request.fullEvery === null ? Number.POSITIVE_INFINITY : (request.fullEvery ?? 50);
  const options = { fullSnapshotEvery, cacheSize: 0 };
  const saver = request.db.startsWith('postgres')
    ? await createPgSaver({ connection: request.db, schema: request.schema, ...options })
    : createSqliteSaver({ database: request.db, ...options });
  try {
    const out = [];
    if (request.op === 'put') {
      for (const { checkpoint, namespace } of request.items) {
        out.push(await saver.put(checkpoint, { namespace: namespace ?? '' }));
      }
    } else {
      for (const [sessionId, id] of request.refs) {
        const checkpoint = await saver.get(sessionId, id);
        out.push(
          checkpoint
            ? { canonical: canonicalJson(checkpoint), fingerprint: fingerprintCheckpoint(checkpoint) }
            : null,
        );
      }
    }
    return out;
  } finally {
    await saver.close?.();
  }
}
