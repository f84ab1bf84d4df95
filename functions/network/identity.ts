// Who is who on the protocol: handles, DIDs and at-uris, built each time from a member's username (or
// id) and the deployment's handle domain; nothing of it is stored (spec: Protocol server: identity).
import type { RuntimeConfig } from "../../shared/config.ts";
import type { SiteSettings } from "../../shared/site.ts";

/** What identity needs of a member: any profiles or network_people() row has it. */
export interface Member {
  id: string;
  username: string | null;
  network_did?: string | null;
}

/** The first label of a member's handle: the username, else `m` + the last twelve hex digits of the id. */
export function nameOf(member: Member): string {
  return member.username ?? `m${member.id.split("-")[4]}`;
}

export function handleOf(member: Member, domain: string): string {
  return `${nameOf(member)}.${domain}`;
}

/** did:web of a host; a port is written %3A (the did:web method's rule). */
export function didWebOf(host: string): string {
  return `did:web:${host.toLowerCase().replace(/:/g, "%3A")}`;
}

/** A member's DID: their did:plc once they joined the wider network, else did:web:<handle>. */
export function didOf(member: Member, domain: string): string {
  return member.network_did ?? didWebOf(handleOf(member, domain));
}

export function atUri(did: string, collection: string, rkey: string): string {
  return `at://${did}/${collection}/${rkey}`;
}

/** The handle domain: NETWORK_HANDLE_DOMAIN, else the configuration's network.handleDomain, else the site's domain. */
export function handleDomainOf(config: RuntimeConfig, site: SiteSettings): string {
  const configured = site.config?.network?.handleDomain;
  return (config.networkHandleDomain ?? (typeof configured === "string" ? configured : site.domain))
    .toLowerCase().replace(/^\./, "");
}

/** The site's own DID, did:web of its public host; it names the server of the spaces' feed generators. */
export function siteDidOf(config: RuntimeConfig): string {
  return didWebOf(new URL(config.publicUrl).host);
}

/** The handle name a handle of this site carries, or undefined when it is not one of ours. */
export function nameFromHandle(handle: string, domain: string): string | undefined {
  const lower = handle.toLowerCase();
  if (!lower.endsWith(`.${domain}`)) return undefined;
  const name = lower.slice(0, -domain.length - 1);
  return /^[a-z0-9-]+$/.test(name) ? name : undefined;
}

/** The handle name inside one of our did:web DIDs, or undefined. */
export function nameFromDid(did: string, domain: string): string | undefined {
  if (!did.startsWith("did:web:")) return undefined;
  return nameFromHandle(decodeURIComponent(did.slice("did:web:".length)), domain);
}

/** A member's DID document (did:web), pointing apps at the site's origin for their server. */
export function memberDidDocument(member: Member, domain: string, origin: string) {
  const did = didOf(member, domain);
  return {
    "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"],
    id: did,
    alsoKnownAs: [`at://${handleOf(member, domain)}`],
    verificationMethod: [],
    service: [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: origin }],
  };
}

/** The site's own DID document: the server of its spaces' feed generators. */
export function siteDidDocument(config: RuntimeConfig) {
  return {
    "@context": ["https://www.w3.org/ns/did/v1"],
    id: siteDidOf(config),
    service: [{ id: "#bsky_fg", type: "BskyFeedGenerator", serviceEndpoint: config.publicUrl }],
  };
}
