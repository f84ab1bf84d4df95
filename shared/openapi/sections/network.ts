// The protocol server (AT Protocol PDS-compatible; spec network-and-support.md "Protocol server"). Its
// bodies follow the protocol's lexicons, so (as the spec allows) the XRPC surface is summarised: one
// query route and one procedure route, each naming the methods the site serves. The spec's tag list has
// no tag for it; it gets its own, under a Network API group.
import { errorResponses, type ErrorRow, json, pathParam } from "../builders.ts";
import type { OpenApiSection, Operation, Schema, SecurityRequirement } from "../types.ts";

export const NETWORK_TAG = "Network";
const GROUP = "Network API";

/** Methods answered with GET (lexicon queries). */
export const XRPC_QUERIES = [
  "com.atproto.server.describeServer",
  "com.atproto.server.getSession",
  "com.atproto.server.listAppPasswords",
  "com.atproto.server.checkAccountStatus",
  "com.atproto.identity.resolveHandle",
  "com.atproto.repo.getRecord",
  "com.atproto.repo.listRecords",
  "com.atproto.repo.describeRepo",
  "com.atproto.sync.getRepo",
  "com.atproto.sync.getLatestCommit",
  "com.atproto.sync.getRecord",
  "com.atproto.sync.getRepoStatus",
  "com.atproto.sync.listRepos",
  "com.atproto.sync.getBlob",
  "com.atproto.sync.subscribeRepos",
  "app.bsky.actor.getProfile",
  "app.bsky.actor.getProfiles",
  "app.bsky.actor.searchActors",
  "app.bsky.actor.searchActorsTypeahead",
  "app.bsky.actor.getPreferences",
  "app.bsky.feed.getTimeline",
  "app.bsky.feed.getAuthorFeed",
  "app.bsky.feed.getPostThread",
  "app.bsky.feed.getPosts",
  "app.bsky.feed.getLikes",
  "app.bsky.feed.getRepostedBy",
  "app.bsky.feed.getFeedGenerator",
  "app.bsky.feed.getFeedGenerators",
  "app.bsky.feed.getSuggestedFeeds",
  "app.bsky.feed.describeFeedGenerator",
  "app.bsky.feed.getFeed",
  "app.bsky.feed.getFeedSkeleton",
  "app.bsky.graph.getFollows",
  "app.bsky.graph.getFollowers",
  "app.bsky.graph.getBlocks",
  "app.bsky.graph.getMutes",
  "app.bsky.graph.getRelationships",
  "app.bsky.notification.listNotifications",
  "app.bsky.notification.getUnreadCount",
  "app.bsky.labeler.getServices",
];

/** Methods answered with POST (lexicon procedures). */
export const XRPC_PROCEDURES = [
  "com.atproto.server.createSession",
  "com.atproto.server.refreshSession",
  "com.atproto.server.deleteSession",
  "com.atproto.server.createAppPassword",
  "com.atproto.server.revokeAppPassword",
  "com.atproto.server.createAccount",
  "com.atproto.identity.updateHandle",
  "com.atproto.repo.createRecord",
  "com.atproto.repo.putRecord",
  "com.atproto.repo.deleteRecord",
  "com.atproto.repo.applyWrites",
  "com.atproto.repo.uploadBlob",
  "app.bsky.actor.putPreferences",
  "app.bsky.graph.muteActor",
  "app.bsky.graph.unmuteActor",
  "app.bsky.notification.updateSeen",
];

const XRPC_ERRORS = [
  "ExpiredToken",
  "RateLimitExceeded",
  "Forbidden",
  "MethodNotImplemented",
  "InvalidRecord",
  "FutureCursor",
  "RepoDeactivated",
  "RepoTakendown",
  "InvalidRequest",
  "AuthRequired",
];

const ERRORS: ErrorRow[] = [
  { status: 400, name: "XrpcBadRequest", description: "InvalidRequest, InvalidRecord, FutureCursor, RepoDeactivated, RepoTakendown, ExpiredToken.", example: { error: "InvalidRecord", message: "Record does not match its lexicon" } },
  { status: 401, name: "XrpcUnauthorized", description: "AuthRequired or ExpiredToken: sign in again or refresh the session.", example: { error: "ExpiredToken", message: "Token has expired" } },
  { status: 403, name: "XrpcForbidden", description: "Forbidden: other apps may not sign in here, or a write to somebody else's repository.", example: { error: "Forbidden", message: "This site does not let other apps sign in." } },
  { status: 429, name: "XrpcRateLimited", description: "RateLimitExceeded: ten wrong passwords from one address within an hour.", example: { error: "RateLimitExceeded", message: "Too many attempts" } },
  { status: 501, name: "XrpcNotImplemented", description: "MethodNotImplemented: the network module is off, the method is not served, or the network is closed.", example: { error: "MethodNotImplemented", message: "Method not implemented" } },
];

const security: SecurityRequirement[] = [{ networkSession: [] }, {}];
const errors = Object.fromEntries(ERRORS.map((row) => [String(row.status), { $ref: `#/components/responses/${row.name}` }]));

function xrpc(method: "get" | "post", names: string[]): Operation {
  return {
    operationId: method === "get" ? "xrpcQuery" : "xrpcProcedure",
    summary: method === "get" ? "Call a query method" : "Call a procedure",
    description:
      "Bodies and parameters follow the protocol's standard lexicons. Methods: " + names.map((n) => `\`${n}\``).join(", ") + ".",
    tags: [NETWORK_TAG],
    security,
    parameters: [pathParam("nsid", "The method's NSID.", { type: "string", enum: names })],
    ...(method === "post"
      ? { requestBody: { required: false, content: { ...json({ type: "object", additionalProperties: true }), "*/*": { schema: { type: "string", contentMediaType: "application/octet-stream" } } } } }
      : {}),
    responses: {
      "200": { description: "The lexicon's output.", content: { ...json({ type: "object", additionalProperties: true }), "application/vnd.ipld.car": { schema: { type: "string" } } } },
      ...errors,
    },
  };
}

export const networkSection: OpenApiSection = {
  name: "network",
  requires: ["network"],
  schemaNames: ["XrpcError"],
  tags: [{
    name: NETWORK_TAG,
    group: GROUP,
    description:
      "The site's social network as an AT Protocol server at the site's root: members sign other apps in with an " +
      "app password; where the site federates, relays follow joined members through sync and the event stream. " +
      "Chat methods are not served. Errors: { error, message }.",
  }],
  paths() {
    return {
      "/xrpc/{nsid}": { get: xrpc("get", XRPC_QUERIES), post: xrpc("post", XRPC_PROCEDURES) },
      "/.well-known/atproto-did": {
        get: {
          operationId: "getAtprotoDid",
          summary: "Resolve the asked host's handle to its DID",
          tags: [NETWORK_TAG],
          security: [],
          responses: {
            "200": { description: "The DID, as text.", content: { "text/plain": { schema: { type: "string", pattern: "^did:" } } } },
            "404": { description: "No member has this handle." },
          },
        },
      },
      "/.well-known/did.json": {
        get: {
          operationId: "getDidDocument",
          summary: "Get the did:web document",
          description: "A member's on their handle's host; the site's own on the site's host.",
          tags: [NETWORK_TAG],
          security: [],
          responses: {
            "200": { description: "The DID document.", content: json({ type: "object", required: ["id"], properties: { id: { type: "string" } }, additionalProperties: true }) },
            "404": { description: "No DID document for this host." },
          },
        },
      },
    };
  },
  components() {
    const schema: Schema = {
      type: "object",
      required: ["error"],
      properties: { error: { type: "string", examples: XRPC_ERRORS }, message: { type: "string" } },
    };
    return {
      schemas: { XrpcError: schema },
      responses: errorResponses("XrpcError", ERRORS),
      securitySchemes: {
        networkSession: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "A protocol session's access token (createSession with an app password); refresh with refreshSession.",
        },
      },
    };
  },
};

