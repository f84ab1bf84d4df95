// Whether and how the site federates: network.federation (`open` or `closed`, default closed), the
// directory (NETWORK_PLC_URL), the relay (NETWORK_RELAY_URL, else network.relay) and the app view
// (network.appview: its URL, and its DID when that is not did:web of its host).
import type { RuntimeConfig } from "../../../shared/config.ts";
import { didWebOf } from "../identity.ts";
import { methodNotImplemented } from "../xrpc/errors.ts";
import type { NetworkSite } from "../xrpc/method.ts";

export interface Federation {
  open: boolean;
  plcUrl: string;
  relayUrl?: string;
  appview?: { url: string; did: string };
}

export function federationOf(config: RuntimeConfig, site: NetworkSite): Federation {
  const network = (site.settings.config?.network ?? {}) as Record<string, unknown>;
  const relay = config.networkRelayUrl ?? (typeof network.relay === "string" ? network.relay.replace(/\/+$/, "") : undefined);
  return {
    open: network.federation === "open",
    plcUrl: config.networkPlcUrl,
    relayUrl: relay || undefined,
    appview: appviewOf(network.appview),
  };
}

function appviewOf(value: unknown): Federation["appview"] {
  const setting = typeof value === "string" ? { url: value } : (value ?? {}) as { url?: unknown; did?: unknown };
  if (typeof setting.url !== "string" || !/^https?:\/\//.test(setting.url)) return undefined;
  const url = setting.url.replace(/\/+$/, "");
  return { url, did: typeof setting.did === "string" ? setting.did : didWebOf(new URL(url).host) };
}

export const CLOSED_MESSAGE = "The site's network is closed: it does not federate.";

/** The federation of an open site; a closed one answers MethodNotImplemented. */
export function openFederation(config: RuntimeConfig, site: NetworkSite): Federation {
  const federation = federationOf(config, site);
  if (!federation.open) throw methodNotImplemented(CLOSED_MESSAGE);
  return federation;
}
