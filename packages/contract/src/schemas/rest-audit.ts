import { Type } from 'typebox';
import { AuditableCallSchema } from './audit.js';
import { closedObject } from './common.js';

export const AuditPageSchema = closedObject(
  {
    calls: Type.Array(AuditableCallSchema, { description: 'Audit rows, oldest first.' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'The next page, null at the end.' }),
  },
  { title: 'AuditPage', description: "`GET /sessions/:id/audit`: one page of the session's audit rows." },
);
