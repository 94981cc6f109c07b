// Before the relay-pool project runs: worker/generated/assets.ts (the samples and the demo page the
// relay Worker imports; not committed), as `wrangler dev` makes it with its [build] command.
import { buildAssets } from "../../worker/build.mjs";

export default async function setup(): Promise<void> {
  await buildAssets({ quiet: true });
}
