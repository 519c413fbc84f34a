import { type TBoolean, Type } from 'typebox';
import { CAPABILITY_FLAGS, type CapabilityFlag } from '../capabilities.js';
import { closedObject } from './common.js';

const flagProperties = Object.fromEntries(
  CAPABILITY_FLAGS.map((flag) => [flag, Type.Boolean({ description: `Capability flag \`${flag}\`.` })]),
) as { [F in CapabilityFlag]: TBoolean };

export const NegotiatedCapabilitiesSchema = closedObject(flagProperties, {
  title: 'NegotiatedCapabilities',
  description:
    'The 20 capability flags negotiated at session start. Surfaces are gated on these, never on an engine name.',
});
