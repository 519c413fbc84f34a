import { openCodeAcpPreset } from '@agentlane/adapter-acp';
import { engineEntries, missingEngine } from '../src/index';
import { describeAcpAgent } from './support/acp-agent-suite';

// OpenCode's own ACP mode (`opencode acp`), the pinned binary the HTTP-server adapter runs too.
const entries = engineEntries();
describeAcpAgent(
  'opencode-acp',
  entries.opencode,
  missingEngine('opencode', entries),
  (entry, fake, homeRoot) =>
    openCodeAcpPreset({ entry, modelBaseUrl: fake.url, homeRoot, model: 'fake-model' }),
);
