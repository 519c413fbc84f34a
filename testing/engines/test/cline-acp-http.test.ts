import { clinePreset } from '@agentlane/adapter-acp';
import { engineEntries, missingEngine } from '../src/index';
import { describeAcpAgent } from './support/acp-agent-suite';

// Cline's ACP mode (`cline --acp`, its platform binary), on the fake's OpenAI Chat Completions endpoint.
const entries = engineEntries();
describeAcpAgent('cline', entries.cline, missingEngine('cline', entries), (entry, fake, homeRoot) =>
  clinePreset({ entry, modelBaseUrl: fake.url, homeRoot, model: 'fake-model' }),
);
