import { join } from 'node:path';
import { describeTranslatorConformance } from '@agentlane/engine-kit/testing';
import { recordingsIn } from '../../test-support/trace';
import { acpTranslator } from '../src';

describeTranslatorConformance({
  name: 'ACP',
  translator: acpTranslator,
  recordings: recordingsIn(join(import.meta.dirname, '__fixtures__')),
});
