// The relay's door encodings the answer-loop benches load from a build's dist/ (bench/door-encodings.mjs in
// Node, bench/door-encodings-workerd.mjs in workerd): each door's module under dist/relay/doors/ and its export.
export const DOOR_ENCODINGS = {
  responses: ["open-responses/encoding.js", "openResponsesEncoding"],
  chat: ["chat-completions/encoding.js", "chatCompletionsEncoding"],
  messages: ["anthropic-messages/encoding.js", "messagesEncoding"],
  gemini: ["gemini/encoding.js", "geminiEncoding"],
  "ui-chat": ["ui-chat/encoding.js", "uiChatEncoding"],
};
