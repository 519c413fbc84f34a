import { qwenCodePreset } from '@agentlane/adapter-acp';
import { engineEntries, missingEngine } from '../src/index';
import { describeAcpAgent } from './support/acp-agent-suite';

// Qwen Code in ACP mode (`qwen --acp`), on the fake's OpenAI Chat Completions endpoint.
const entries = engineEntries();
describeAcpAgent('qwen', entries.qwen, missingEngine('qwen-code', entries), (entry, fake, homeRoot) =>
  qwenCodePreset({ entry, modelBaseUrl: fake.url, homeRoot, model: 'fake-model' }),
);
