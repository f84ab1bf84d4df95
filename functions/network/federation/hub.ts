// One firehose hub per function context (per instance): commits made here poke it at once.
import type { FunctionContext } from "../../../shared/context.ts";
import { Firehose } from "./firehose.ts";

const hubs = new WeakMap<FunctionContext, Firehose>();

export function firehoseOf(ctx: FunctionContext): Firehose {
  let hub = hubs.get(ctx);
  if (!hub) {
    hub = new Firehose(ctx, ctx.config.networkFirehoseBufferBytes, ctx.config.networkFirehoseBackfillMs);
    hubs.set(ctx, hub);
  }
  return hub;
}
