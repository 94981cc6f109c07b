// Portkey's open-source gateway (@portkey-ai/gateway, its own build/start-server.js, --headless) for
// the gateway bench (bench/gateway.mjs, issue #49) in its own Node process, held to 127.0.0.1: its
// server listens on every interface by default and has no option for the address, so `listen` is
// given the host here before its module loads; the bench's meter (meter.mjs) answers on IPC. Nothing
// else of it is touched.
//   node bench/gateway/portkey-server.mjs --port=N
import net from "node:net";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { installMeter } from "./meter.mjs";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  // serve({ fetch, port }) → server.listen(port, callback): the host goes between them
  if (typeof args[0] === "number" && typeof args[1] !== "string") args.splice(1, 0, "127.0.0.1");
  else if (args[0] && typeof args[0] === "object") args[0] = { ...args[0], host: "127.0.0.1" };
  return listen.apply(this, args);
};
installMeter();
const require = createRequire(import.meta.url);
await import(pathToFileURL(require.resolve("@portkey-ai/gateway/build/start-server.js")).href);
