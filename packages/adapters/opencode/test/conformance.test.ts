import { join } from 'node:path';
import { describeTranslatorConformance } from '@agentlane/engine-kit/testing';
import { recordingsIn } from '../../test-support/trace';
import { openCodeTranslator } from '../src';

describeTranslatorConformance({
  name: 'OpenCode',
  translator: openCodeTranslator,
  recordings: recordingsIn(join(import.meta.dirname, '__fixtures__')),
});
