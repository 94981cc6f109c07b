// Launches Debian's Chromium (/usr/bin/chromium, or $CHROMIUM_PATH) through playwright-core:
// Playwright's own browser downloads are unreachable here.
import { chromium } from "playwright-core";

export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_ARGS,
  });
}
