// Every shared case, grouped by area. Each runtime adapter registers these.
import type { Case } from "../harness.ts";
import * as assemble from "./assemble.ts";
import * as base64 from "./base64.ts";
import * as chunking from "./chunking.ts";
import * as contract from "./contract.ts";
import * as encode from "./encode.ts";
import * as encodeProviders from "./encode-providers.ts";
import * as encodeAnthropic from "./encode-anthropic.ts";
import * as encodeOpenResponses from "./encode-open-responses.ts";
import * as framing from "./framing.ts";
import * as fromFetch from "./from-fetch.ts";
import * as grammar from "./grammar.ts";
import * as hostile from "./hostile.ts";
import * as jsonKeys from "./json-keys.ts";
import * as large from "./large.ts";
import * as live from "./live.ts";
import * as mistakes from "./mistakes.ts";
import * as partialJson from "./partial-json.ts";
import * as paths from "./paths.ts";
import * as pollution from "./pollution.ts";
import * as providers from "./providers.ts";
import * as providersCounts from "./providers-counts.ts";
import * as providersCrossing from "./providers-crossing.ts";
import * as providersDoneLimit from "./providers-done-limit.ts";
import * as providersHeld from "./providers-held.ts";
import * as providersShortWay from "./providers-short-way.ts";
import * as providersThinking from "./providers-thinking.ts";
import * as providersMore from "./providers-more.ts";
import * as providersReported from "./providers-reported.ts";
import * as providersWhole from "./providers-whole.ts";
import * as providersDialects from "./providers-dialects.ts";
import * as reader from "./reader.ts";
import * as schema from "./schema.ts";
import * as shortWay from "./short-way.ts";
import * as smoke from "./smoke.ts";
import * as testing from "./testing.ts";

const groups: [string, Case[]][] = [
  ["framing", framing.cases],
  ["grammar", grammar.cases],
  ["reader", reader.cases],
  ["schema", schema.cases],
  ["chunking", chunking.cases],
  ["base64", base64.cases],
  ["hostile", hostile.cases],
  ["large", large.cases],
  ["live", live.cases],
  ["partial-json", partialJson.cases],
  ["json-keys", jsonKeys.cases],
  ["smoke", smoke.cases],
  ["assemble", assemble.cases],
  ["encode", encode.cases],
  ["encode-providers", encodeProviders.cases],
  ["encode-anthropic", encodeAnthropic.cases],
  ["encode-open-responses", encodeOpenResponses.cases],
  ["paths", paths.cases],
  ["short-way", shortWay.cases],
  ["contract", contract.cases],
  ["mistakes", mistakes.cases],
  ["from-fetch", fromFetch.cases],
  ["testing", testing.cases],
  ["providers", providers.cases],
  ["providers-more", providersMore.cases],
  ["providers-reported", providersReported.cases],
  ["providers-held", providersHeld.cases],
  ["providers-short-way", providersShortWay.cases],
  ["providers-thinking", providersThinking.cases],
  ["pollution", pollution.cases],
  ["providers-whole", providersWhole.cases],
  ["providers-counts", providersCounts.cases],
  ["providers-done-limit", providersDoneLimit.cases],
  ["providers-dialects", providersDialects.cases],
  ["providers-crossing", providersCrossing.cases],
];

export const cases: Case[] = groups.flatMap(([area, list]) => list.map(([name, fn]): Case => [`${area}: ${name}`, fn]));
