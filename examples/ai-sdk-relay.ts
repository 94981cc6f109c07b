// useChat on your own relay (docs/guide/ai-sdk.md): a Cloudflare Worker that answers the AI SDK's
// `POST /api/chat` from Claude, resumes a chat's open answer (`GET /api/chat/<chatId>/stream`) and
// stops it (`DELETE`, what MmspChatTransport's Stop sends). wrangler.toml: binding STREAMS to the class
// RelayStream (a `new_sqlite_classes` migration); secrets ANTHROPIC_API_KEY and RELAY_KEYS.
import { createRelay, type RelayEnv } from "mmsp-streams/relay";
import { anthropic } from "mmsp-streams/providers";

type Env = RelayEnv & { ANTHROPIC_API_KEY: string; ANTHROPIC_BASE_URL?: string };
const relay = createRelay<Env>({
  models: (env) => ({
    claude: { provider: anthropic({ apiKey: env.ANTHROPIC_API_KEY, baseURL: env.ANTHROPIC_BASE_URL }), model: "claude-sonnet-4-5" },
  }),
});
export const RelayStream = relay.StreamObject;
export default relay;
