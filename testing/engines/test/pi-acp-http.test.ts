import { piPreset } from '@agentlane/adapter-acp';
import { engineEntries, missingEngine } from '../src/index';
import { describeAcpAgent } from './support/acp-agent-suite';

// pi through pi-acp, on the fake's OpenAI Chat Completions endpoint. pi needs Node >= 22.19: the pinned
// Node 22 runs pi-acp and (first on its PATH) pi; approvals come from the preset's pi extension.
const entries = engineEntries();
const entry = entries.pi && entries.piCli && entries.piNode ? entries.pi : null;
const why = entries.pi && !entries.piNode ? 'no Node >= 22.19 for pi' : missingEngine('pi', entries);
describeAcpAgent('pi', entry, why, (entry, fake, homeRoot) =>
  piPreset({
    entry,
    modelBaseUrl: fake.url,
    homeRoot,
    model: 'fake-model',
    node: entries.piNode!,
    agentCommand: entries.piCli!,
  }),
);
