// Every shared case, grouped by area. Each runtime adapter registers these.
import type { Case } from "../harness.ts";
import * as smoke from "./smoke.ts";

const groups: [string, Case[]][] = [
  ["smoke", smoke.cases],
];

export const cases: Case[] = groups.flatMap(([area, list]) => list.map(([name, fn]): Case => [`${area}: ${name}`, fn]));
