// Relays: com.atproto.sync.requestCrawl to the configured relay when a member joins and on the daily
// /internal/crawl; what it answered is kept for the operator (network_crawls).
import type { FunctionContext } from "../../../shared/context.ts";
import { saveCrawl } from "../store/repo.ts";

export async function requestCrawl(ctx: FunctionContext, relayUrl: string | undefined): Promise<{ status: number | null; answer: string } | undefined> {
  if (!relayUrl) return undefined;
  const hostname = new URL(ctx.config.publicUrl).host;
  let status: number | null = null;
  let answer: string;
  try {
    const response = await fetch(`${relayUrl}/xrpc/com.atproto.sync.requestCrawl`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ hostname }),
      signal: AbortSignal.timeout(10_000),
    });
    status = response.status;
    answer = (await response.text()).slice(0, 2000);
  } catch (error) {
    answer = `The relay could not be reached: ${(error as Error).message}`;
  }
  await saveCrawl(ctx.sql, { relay: relayUrl, at: ctx.clock.now(), status, answer });
  return { status, answer };
}
