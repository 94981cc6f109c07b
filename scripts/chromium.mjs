// Launches Debian's Chromium (/usr/bin/chromium, or $CHROMIUM_PATH) through playwright-core:
// Playwright's own browser downloads are unreachable here.
import { chromium } from "playwright-core";

export const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** The page's errors as they happen (uncaught exceptions and console errors), in the array returned. */
export function pageErrors(page) {
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  return errors;
}

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_ARGS,
  });
}
