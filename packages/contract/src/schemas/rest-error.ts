import { Type } from 'typebox';
import { closedObject, count } from './common.js';

export const ErrorDetailSchema = closedObject(
  {
    code: Type.String({ description: "A code of the server's status table, e.g. `invalid_request`." }),
    message: Type.String({ description: 'What went wrong, for people.' }),
    field: Type.Optional(Type.String({ description: 'The offending input, e.g. `body.prompt`.' })),
  },
  { title: 'ErrorDetail', description: 'What went wrong and the input at fault.' },
);

export const ErrorBodySchema = closedObject(
  { error: ErrorDetailSchema },
  { title: 'ErrorBody', description: 'The JSON body of every 4xx/5xx answer.' },
);

export const CursorErrorBodySchema = closedObject(
  {
    error: ErrorDetailSchema,
    headDeliverySeq: Type.Optional(count('The head of the thread now')),
  },
  {
    title: 'CursorErrorBody',
    description: 'A refused resume cursor: the error and the head the client can resume from.',
  },
);
