import type { ConversationMessage } from '@agentlane/contract';
import { describe, expect, it } from 'vitest';
import { toModelMessages, UNANSWERED_MARK } from '../src/conversation';

const user = (text: string): ConversationMessage => ({
  id: `u-${text}`,
  role: 'user',
  parts: [{ type: 'text', text }],
});
const assistant = (text: string): ConversationMessage => ({
  id: `a-${text}`,
  role: 'assistant',
  parts: [{ type: 'text', text }],
});

describe('a conversation as model messages', () => {
  it('a prompt whose turn got no answer goes with the next one, marked as unanswered', () => {
    // A cancelled (or failed) turn leaves its prompt followed directly by the next prompt.
    const messages = toModelMessages([
      user('hi'),
      assistant('hello'),
      user('slow story'),
      user('after cancel'),
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
      {
        role: 'user',
        content: [{ type: 'text', text: `slow story\n\n${UNANSWERED_MARK}\n\nafter cancel` }],
      },
    ]);
  });

  it('three unanswered prompts in a row are one message with a mark after each of the first two', () => {
    const [only] = toModelMessages([user('a'), user('b'), user('c')]);
    expect(only).toEqual({
      role: 'user',
      content: [{ type: 'text', text: `a\n\n${UNANSWERED_MARK}\n\nb\n\n${UNANSWERED_MARK}\n\nc` }],
    });
  });
});
