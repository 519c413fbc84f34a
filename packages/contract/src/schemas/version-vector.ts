import { Type } from 'typebox';
import { closedObject, count, id } from './common.js';

export const VersionVectorSchema = Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
  title: 'VersionVector',
  description: 'Client id -> the number of writes seen from that client (a missing entry means 0).',
});

export const VersionedChangeSchema = closedObject(
  {
    clientId: id('The writing client.'),
    version: count("The client's own entry after incrementing."),
  },
  { title: 'VersionedChange', description: 'One write by one client.' },
);
