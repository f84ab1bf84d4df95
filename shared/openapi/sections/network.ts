// The protocol server (AT Protocol PDS-compatible; spec network-and-support.md "Protocol server"). Its
// bodies follow the protocol's lexicons, so (as the spec allows) the XRPC surface is summarised: one
// query route and one procedure route, each naming the methods the site serves. The spec's tag list has
// no tag for it; it gets its own, under a Network API group.
import { errorResponses, type ErrorRow, json, pathParam } from "../builders.ts";
import type { OpenApiSection, Operation, Schema, SecurityRequirement } from "../types.ts";

export const NETWORK_TAG = "Network";
const GROUP = "Network API";

/**
 * Methods answered with GET (lexicon queries): exactly those the network function serves
 * (tests/functions/network/openapi.test.ts compares them with its method table). Labelers, lists,
 * starter packs, suggestions and unspecced answer lexicon-valid empty bodies: the site has none (and a
 * method about one list or starter pack answers that it is not found).
 */
export const XRPC_QUERIES = [
  "com.atproto.identity.resolveHandle",
  "com.atproto.repo.describeRepo",
  "com.atproto.repo.getRecord",
  "com.atproto.repo.listRecords",
  "com.atproto.server.checkAccountStatus",
  "com.atproto.server.describeServer",
  "com.atproto.server.getSession",
  "com.atproto.server.listAppPasswords",
  "com.atproto.sync.getBlob",
  "com.atproto.sync.getLatestCommit",
  "com.atproto.sync.getRecord",
  "com.atproto.sync.getRepo",
  "com.atproto.sync.getRepoStatus",
  "com.atproto.sync.listRepos",
  "app.bsky.actor.getPreferences",
  "app.bsky.actor.getProfile",
  "app.bsky.actor.getProfiles",
  "app.bsky.actor.getSuggestions",
  "app.bsky.actor.searchActors",
  "app.bsky.actor.searchActorsTypeahead",
  "app.bsky.feed.describeFeedGenerator",
  "app.bsky.feed.getActorLikes",
  "app.bsky.feed.getActorFeeds",
  "app.bsky.feed.getAuthorFeed",
  "app.bsky.feed.getFeed",
  "app.bsky.feed.getFeedGenerator",
  "app.bsky.feed.getFeedGenerators",
  "app.bsky.feed.getFeedSkeleton",
  "app.bsky.feed.getLikes",
  "app.bsky.feed.getListFeed",
  "app.bsky.feed.getPostThread",
  "app.bsky.feed.getPosts",
  "app.bsky.feed.getQuotes",
  "app.bsky.feed.getRepostedBy",
  "app.bsky.feed.getSuggestedFeeds",
  "app.bsky.feed.getTimeline",
  "app.bsky.feed.searchPosts",
  "app.bsky.graph.getActorStarterPacks",
  "app.bsky.graph.getBlocks",
  "app.bsky.graph.getFollowers",
  "app.bsky.graph.getFollows",
  "app.bsky.graph.getKnownFollowers",
  "app.bsky.graph.getList",
  "app.bsky.graph.getListBlocks",
  "app.bsky.graph.getListMutes",
  "app.bsky.graph.getLists",
  "app.bsky.graph.getListsWithMembership",
  "app.bsky.graph.getMutes",
  "app.bsky.graph.getRelationships",
  "app.bsky.graph.getStarterPack",
  "app.bsky.graph.getStarterPacks",
  "app.bsky.graph.getStarterPacksWithMembership",
  "app.bsky.graph.getSuggestedFollowsByActor",
  "app.bsky.graph.searchStarterPacks",
  "app.bsky.labeler.getServices",
  "app.bsky.notification.getUnreadCount",
  "app.bsky.notification.listNotifications",
  "app.bsky.unspecced.getConfig",
  "app.bsky.unspecced.getOnboardingSuggestedStarterPacks",
  "app.bsky.unspecced.getPopularFeedGenerators",
  "app.bsky.unspecced.getSuggestedFeeds",
  "app.bsky.unspecced.getSuggestedOnboardingUsers",
  "app.bsky.unspecced.getSuggestedStarterPacks",
  "app.bsky.unspecced.getSuggestedUsers",
  "app.bsky.unspecced.getSuggestedUsersForDiscover",
  "app.bsky.unspecced.getSuggestedUsersForExplore",
  "app.bsky.unspecced.getSuggestedUsersForSeeMore",
  "app.bsky.unspecced.getSuggestionsSkeleton",
  "app.bsky.unspecced.getTaggedSuggestions",
  "app.bsky.unspecced.getTrendingTopics",
  "app.bsky.unspecced.getTrends",
];

/** Methods answered with POST (lexicon procedures). */
export const XRPC_PROCEDURES = [
  "com.atproto.identity.updateHandle",
  "com.atproto.repo.applyWrites",
  "com.atproto.repo.createRecord",
  "com.atproto.repo.deleteRecord",
  "com.atproto.repo.putRecord",
  "com.atproto.repo.uploadBlob",
  "com.atproto.server.createAccount",
  "com.atproto.server.createAppPassword",
  "com.atproto.server.createSession",
  "com.atproto.server.deleteSession",
  "com.atproto.server.refreshSession",
  "com.atproto.server.revokeAppPassword",
  "app.bsky.actor.putPreferences",
  "app.bsky.graph.muteActor",
  "app.bsky.graph.muteActorList",
  "app.bsky.graph.muteThread",
  "app.bsky.graph.unmuteActor",
  "app.bsky.graph.unmuteActorList",
  "app.bsky.graph.unmuteThread",
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
  "InvalidToken",
  "InvalidSwap",
  "AuthenticationRequired",
  "AccountTakedown",
  "HandleNotFound",
  "RecordNotFound",
  "PayloadTooLarge",
];

const ERRORS: ErrorRow[] = [
  { status: 400, name: "XrpcBadRequest", description: "ExpiredToken (refresh the session), InvalidToken, InvalidRequest, InvalidRecord (a record that breaks its lexicon, or one the database refuses: a reply or quote wider than its post, across a block, by a suspended member), InvalidSwap, HandleNotFound, RecordNotFound.", example: { error: "ExpiredToken", message: "Token has expired" } },
  { status: 401, name: "XrpcUnauthorized", description: "AuthenticationRequired: no token, a revoked one (its app password revoked, a ban, a password change, signed out everywhere), or a wrong identifier or app password; AccountTakedown for a suspended member.", example: { error: "AuthenticationRequired", message: "Invalid identifier or password" } },
  { status: 403, name: "XrpcForbidden", description: "Forbidden: other apps may not sign in here (network.apps off), a write to somebody else's repository, or an app password made from an app.", example: { error: "Forbidden", message: "This site does not let other apps sign in." } },
  { status: 413, name: "XrpcPayloadTooLarge", description: "PayloadTooLarge: a picture over 10 MB or a video over 100 MB.", example: { error: "PayloadTooLarge", message: "A picture is at most 10 MB." } },
  { status: 429, name: "XrpcRateLimited", description: "RateLimitExceeded: ten wrong app passwords from one address within an hour.", example: { error: "RateLimitExceeded", message: "Too many wrong passwords from this address: try again within the hour." } },
  { status: 501, name: "XrpcNotImplemented", description: "MethodNotImplemented: the network module is off, or the method is not served (chat.bsky.* among them).", example: { error: "MethodNotImplemented", message: "Method Not Implemented" } },
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
      ? {
        requestBody: {
          required: false,
          description: "JSON for every procedure; uploadBlob takes the raw bytes typed by their content-type " +
            "(image/png, image/jpeg, image/gif, image/webp up to 10 MB; video/mp4, video/webm, video/quicktime up to 100 MB).",
          content: { ...json({ type: "object", additionalProperties: true }), "*/*": { schema: { type: "string", contentMediaType: "application/octet-stream" } } },
        },
      }
      : {}),
    responses: {
      "200": { description: "The lexicon's output (procedures without one answer an empty body).", content: json({ type: "object", additionalProperties: true }) },
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
      "app password made on the account page (/account/network) and read and write their posts, likes, reposts, " +
      "follows, blocks, profile, feeds (the spaces' feed channels) and notifications. Sessions are JWT-shaped: an " +
      "access token for two hours (then 400 ExpiredToken, and the app refreshes), a refresh token for ninety days. " +
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
      "/account/network": {
        get: {
          operationId: "getNetworkAccountPage",
          summary: "The account page: app passwords",
          description:
            "An HTML page for a member signed in with the site's session (handed over in the address's fragment, " +
            "#access_token=...): it makes app passwords (each shown once), lists and revokes them, and signs every app out.",
          tags: [NETWORK_TAG],
          security: [],
          responses: { "200": { description: "The page.", content: { "text/html": { schema: { type: "string" } } } } },
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
          description:
            "A protocol session's access token (createSession with a handle, DID or address and an app password; " +
            "refreshSession takes the refresh token), or the site's own person token (the account page uses it).",
        },
      },
    };
  },
};

