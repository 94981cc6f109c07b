// The meter of a gateway process in the gateway bench (bench/gateway.mjs): on the IPC message
// { op: "mark" } the process answers { op: "mark", user, system } (µs, process.cpuUsage(): every thread
// of the process) and its peak RSS since the last mark (VmHWM of /proc/self/status, then reset by
// writing 5 to /proc/self/clear_refs; where that cannot be reset, the lifetime peak: `hwmReset` false).
// Ends the process when its parent goes (the IPC channel closes).
import { readFileSync, writeFileSync } from "node:fs";

export function installMeter() {
  const hwmKb = () => {
    try {
      return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? NaN);
    } catch {
      return process.resourceUsage().maxRSS;
    }
  };
  process.on("message", (m) => {
    if (m?.op !== "mark") return;
    const { user, system } = process.cpuUsage();
    const peakKb = hwmKb();
    let hwmReset = true;
    try {
      writeFileSync("/proc/self/clear_refs", "5");
    } catch {
      hwmReset = false;
    }
    process.send({ op: "mark", user, system, peakKb, hwmReset });
  });
  process.on("disconnect", () => process.exit(0));
}
