// What the chat routes run, loaded at their first request (chat-routes.ts).
export { chatMessages } from './chat-history.js';
export { handleChatPost } from './chat-post.js';
export { handleChatReconnect } from './chat-reconnect.js';
export { loadChat } from './chat-thread.js';
