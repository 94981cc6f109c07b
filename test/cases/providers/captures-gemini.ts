// Gemini streams (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`), written from the API
// reference's GenerateContentResponse and the shapes googleapis/js-genai's types and tests give it:
// one `data:` SSE message per chunk, separated by CRLF blank lines as the API sends them.

type Part = Record<string, unknown>;

/** The SSE body of `chunks`. */
const sse = (...chunks: object[]): string => chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join("");

const chunk = (parts: Part[], extra: Record<string, unknown> = {}, candidate: Record<string, unknown> = {}) => ({
  candidates: [{ content: { parts, role: "model" }, index: 0, ...candidate }],
  modelVersion: "gemini-3-pro-preview",
  responseId: "mAitaLmkHPPlz7IPvtfUqQ4",
  ...extra,
});

const usage = (prompt: number, candidates: number | undefined, thoughts?: number, cached?: number) => ({
  usageMetadata: {
    promptTokenCount: prompt,
    ...(candidates !== undefined ? { candidatesTokenCount: candidates } : {}),
    totalTokenCount: prompt + (candidates ?? 0) + (thoughts ?? 0),
    ...(thoughts !== undefined ? { thoughtsTokenCount: thoughts } : {}),
    ...(cached !== undefined ? { cachedContentTokenCount: cached } : {}),
    promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }],
  },
});

const last = (parts: Part[], finishReason: string, u: Record<string, unknown>) => chunk(parts, u, { finishReason });

/** A plain answer in three chunks; usage on every chunk (the last counts), cached input. */
export const TEXT = sse(
  chunk([{ text: "The sky" }], usage(12, 2, undefined, 4)),
  chunk([{ text: " is blue" }], usage(12, 4, undefined, 4)),
  last([{ text: " because of Rayleigh scattering." }], "STOP", usage(12, 11, undefined, 4)),
);

/** A thought signature, as Gemini sends it (base64 of opaque bytes). */
export const SIGNATURE = "CiQB0e2Kb3dRh+BYdbZvmulSN2Pwu2gFx5ke6rtvxBHlV1LTw4QSZQ==";
export const SIGNATURE_2 = "EpMCCpACAdHtim9kHx0lU2wXr2pOb6jcnGpG4Si+GdBwnRyNLjn5UQ==";

/** Thought summaries, the answer, and the signature on the last, empty text part. */
export const THOUGHTS_SIGNED = sse(
  chunk([{ text: "**Considering the question**\n\nThe user wants", thought: true }]),
  chunk([{ text: " a haiku.", thought: true }]),
  chunk([{ text: "Autumn moonlight—" }]),
  chunk([{ text: "\na worm digs silently" }]),
  last([{ text: "", thoughtSignature: SIGNATURE }], "STOP", usage(8, 17, 230)),
);

/** A thought, then a call with its id signed with the thought signature (the relay doors' call-signature cases). */
export const SIGNED_CALL = sse(
  { candidates: [{ content: { parts: [{ text: "The weather is needed.", thought: true }], role: "model" }, index: 0 }], modelVersion: "gemini-3-pro-preview" },
  {
    candidates: [{
      content: { parts: [{ functionCall: { id: "call_g1", name: "get_weather", args: { location: "Paris" } }, thoughtSignature: SIGNATURE }], role: "model" },
      index: 0,
      finishReason: "STOP",
    }],
    modelVersion: "gemini-3-pro-preview",
    usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 10, thoughtsTokenCount: 5, totalTokenCount: 35 },
  },
);

/** Two parallel calls after thinking: only the first carries the signature (prism-php/prism #830); STOP → tool_call (vercel/ai #5116). */
export const PARALLEL_CALLS = sse(
  chunk([{ text: "I need both cities.", thought: true }]),
  last(
    [
      { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: SIGNATURE },
      { functionCall: { id: "call_2", name: "get_weather", args: { city: "Tokyo", units: ["c", "f"] } } },
    ],
    "STOP",
    usage(40, 30, 12),
  ),
);

/** A call whose arguments stream (`streamFunctionCallArguments`, vercel/ai #14358), then an empty call that ends it. */
export const PARTIAL_ARGS = sse(
  chunk([{ functionCall: { name: "write_file", partialArgs: [{ jsonPath: "$.path", stringValue: "notes/" }], willContinue: true }, thoughtSignature: SIGNATURE }]),
  chunk([{ functionCall: { partialArgs: [{ jsonPath: "$.path", stringValue: "todo.md" }], willContinue: true } }]),
  chunk([{ functionCall: { partialArgs: [{ jsonPath: "$.body", stringValue: "- milk", willContinue: true }], willContinue: true } }]),
  chunk([{
    functionCall: {
      partialArgs: [{ jsonPath: "$.body", stringValue: "\n- eggs" }, { jsonPath: "$.options.overwrite", boolValue: true }, { jsonPath: "$.options.mode", numberValue: 420 }],
      willContinue: true,
    },
  }]),
  chunk([{ functionCall: { partialArgs: [{ jsonPath: "$.tags[0]", stringValue: "home" }, { jsonPath: "$['owner']", nullValue: "NULL_VALUE" }] } }]),
  last([{ functionCall: {} }], "STOP", usage(30, 25)),
);

/** A 1×1 PNG and a few bytes of audio. */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
export const PCM_1 = "AAABAAIAAwA=";
export const PCM_2 = "BAAFAAYABwA=";

/** Image generation with a thought image: two images (two items), a thinking image, text. */
export const IMAGES = sse(
  chunk([{ inlineData: { mimeType: "image/png", data: PNG_BASE64 }, thought: true }]),
  chunk([{ text: "Two versions:" }]),
  chunk([{ inlineData: { mimeType: "image/png", data: PNG_BASE64 } }]),
  last([{ inlineData: { mimeType: "image/png", data: PNG_BASE64 }, thoughtSignature: SIGNATURE }], "STOP", usage(10, 2580)),
);

/** Speech: the chunks of one audio stream are one item. */
export const AUDIO = sse(
  chunk([{ inlineData: { mimeType: "audio/L16;codec=pcm;rate=24000", data: PCM_1 } }]),
  last([{ inlineData: { mimeType: "audio/L16;codec=pcm;rate=24000", data: PCM_2 } }], "STOP", usage(6, 40)),
);

/** Cut by maxOutputTokens. */
export const MAX_TOKENS = sse(chunk([{ text: "One, two," }]), last([{ text: " three" }], "MAX_TOKENS", usage(5, 8)));

/** A candidate stopped for safety with no content at all. */
export const SAFETY = sse({
  candidates: [{ finishReason: "SAFETY", index: 0, safetyRatings: [{ category: "HARM_CATEGORY_DANGEROUS_CONTENT", probability: "HIGH", blocked: true }] }],
  ...usage(14, undefined),
  modelVersion: "gemini-2.5-flash",
});

/** A prompt blocked before any candidate. */
export const BLOCKED = sse({
  promptFeedback: { blockReason: "PROHIBITED_CONTENT", blockReasonMessage: "The prompt was blocked." },
  ...usage(9, undefined),
  modelVersion: "gemini-2.5-flash",
});

/** Code execution parts (no UniEvent kind) are skipped and said; Vertex AI's count-less usage on each chunk is not usage. */
export const CODE_EXECUTION = sse(
  chunk([{ executableCode: { language: "PYTHON", code: "print(2+2)" } }], { usageMetadata: { trafficType: "ON_DEMAND" } }),
  chunk([{ codeExecutionResult: { outcome: "OUTCOME_OK", output: "4\n" } }], { usageMetadata: { trafficType: "ON_DEMAND" } }),
  last([{ text: "It is 4." }], "STOP", usage(20, 9)),
);

/** An error inside the 200 stream. */
export const STREAM_ERROR = sse(
  chunk([{ text: "Start" }]),
  { error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } },
);

/** The body ends before any finishReason. */
export const TRUNCATED = sse(chunk([{ text: "Once upon" }]), chunk([{ text: " a time" }]));

/** A streamed call cut before its end. */
export const TRUNCATED_CALL = sse(
  chunk([{ functionCall: { name: "write_file", partialArgs: [{ jsonPath: "$.path", stringValue: "a" }], willContinue: true } }]),
);
