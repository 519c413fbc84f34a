import { copilotPreset } from '@agentlane/adapter-acp';
import { engineEntries, missingEngine } from '../src/index';
import { describeAcpAgent } from './support/acp-agent-suite';

// GitHub Copilot CLI in ACP mode (`copilot --acp`, its platform binary) with its own-key (BYOK) provider
// on the fake's OpenAI Chat Completions endpoint, offline (COPILOT_OFFLINE).
const entries = engineEntries();
describeAcpAgent('copilot', entries.copilot, missingEngine('copilot', entries), (entry, fake, homeRoot) =>
  copilotPreset({ entry, modelBaseUrl: fake.url, homeRoot, model: 'fake-model' }),
);
