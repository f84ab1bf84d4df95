// Chromium for the browser tests: Debian's package (never a downloaded browser), headless, with nothing
// that would reach the network on its own.
import { type Browser, chromium } from "playwright-core";

/** Debian's chromium, unless CHROMIUM_PATH names another Chromium or Chrome (macOS, other distributions). */
export const CHROMIUM_PATH = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
