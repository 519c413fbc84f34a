import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';

/**
 * A chat page as a team would write it with the real `useChat` hook (README's example): `?chat=ID&engine=NAME`.
 * It starts from the chat's stored messages and resumes the active run's stream (`resume: true`); when the
 * stream breaks (the server went away) it loads both again once the server answers. The test reads what
 * useChat holds from `window.chatState`.
 */
const params = new URLSearchParams(location.search);
const chatId = params.get('chat') ?? 'chat';
const engine = params.get('engine') ?? 'builtin';
const api = `${location.origin}/api/harness/protocols/ai-sdk/chat`;

declare global {
  interface Window {
    chatState?: { status: string; error?: string; messages: UIMessage[]; generation: number };
  }
}

async function storedMessages(): Promise<UIMessage[]> {
  const res = await fetch(`${api}/${chatId}/messages`);
  if (res.status === 404) return [];
  if (!res.ok) throw new Error(`messages: ${res.status}`);
  return ((await res.json()) as { messages: UIMessage[] }).messages;
}

function Chat({
  initial,
  generation,
  reconnect,
}: {
  initial: UIMessage[];
  generation: number;
  reconnect(): void;
}) {
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat({
    id: chatId,
    messages: initial,
    resume: true,
    transport: new DefaultChatTransport({ api, body: { engine } }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const [input, setInput] = useState('');
  useEffect(() => {
    window.chatState = { status, messages, generation, ...(error ? { error: error.message } : {}) };
  }, [status, messages, error, generation]);
  // A broken stream: start again from the store once the server answers (once per useChat).
  const reconnecting = useRef(false);
  useEffect(() => {
    if (status !== 'error' || reconnecting.current) return;
    reconnecting.current = true;
    reconnect();
  }, [status, reconnect]);
  return (
    <div>
      <p data-status={status}>status: {status}</p>
      {messages.map((m) => (
        <article key={m.id} className={`message ${m.role}`}>
          <b>{m.role}</b>
          {m.parts.map((part, i) => {
            const key = `${m.id}-${i}`;
            if (part.type === 'text') return <p key={key}>{part.text}</p>;
            if (isToolUIPart(part) && part.state === 'approval-requested')
              return (
                <div key={key} className="approval">
                  {part.title ?? 'a tool'} wants to run
                  <button
                    type="button"
                    onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: true })}
                  >
                    Allow
                  </button>
                  <button
                    type="button"
                    onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: false })}
                  >
                    Deny
                  </button>
                </div>
              );
            if (isToolUIPart(part))
              return (
                <code key={key}>
                  {part.title ?? part.type}: {part.state}
                </code>
              );
            return null;
          })}
        </article>
      ))}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input aria-label="prompt" id="prompt" value={input} onChange={(e) => setInput(e.target.value)} />
        <button type="submit" disabled={status !== 'ready'}>
          Send
        </button>
      </form>
    </div>
  );
}

type Loaded = { messages: UIMessage[]; generation: number };

/** The stored messages, retried until the server answers (it may be restarting). */
function load(generation: number, done: (loaded: Loaded) => void): void {
  storedMessages().then(
    (messages) => done({ messages, generation }),
    () => setTimeout(() => load(generation, done), 200),
  );
}

function App() {
  const [loaded, setLoaded] = useState<Loaded>();
  useEffect(() => load(0, setLoaded), []);
  if (!loaded) return <p>loading</p>;
  // A new key: a fresh useChat on what the store holds now.
  return (
    <Chat
      key={loaded.generation}
      initial={loaded.messages}
      generation={loaded.generation}
      reconnect={() => setTimeout(() => load(loaded.generation + 1, setLoaded), 200)}
    />
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(<App />);
