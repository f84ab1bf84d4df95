// What the site has none of (spec: labelers, unspecced, lists, starter packs are empty): each method
// answers its own lexicon's empty shape, so apps show an empty panel instead of an error, and a method
// about one list or starter pack answers that it is not found. One file for all of them because they
// share one behaviour; every answer is checked against its lexicon in the tests.
import { method } from "../../../xrpc/method.ts";
import { XrpcError } from "../../../xrpc/errors.ts";

const suggestedUsers = { actors: [] };

/** nsid -> the empty answer */
export const EMPTY_ANSWERS: Record<string, Record<string, unknown>> = {
  "app.bsky.labeler.getServices": { views: [] },
  "app.bsky.graph.getLists": { lists: [] },
  "app.bsky.graph.getListBlocks": { lists: [] },
  "app.bsky.graph.getListMutes": { lists: [] },
  "app.bsky.graph.getListsWithMembership": { listsWithMembership: [] },
  "app.bsky.graph.getActorStarterPacks": { starterPacks: [] },
  "app.bsky.graph.getStarterPacks": { starterPacks: [] },
  "app.bsky.graph.getStarterPacksWithMembership": { starterPacksWithMembership: [] },
  "app.bsky.graph.searchStarterPacks": { starterPacks: [] },
  "app.bsky.graph.getSuggestedFollowsByActor": { suggestions: [] },
  "app.bsky.actor.getSuggestions": suggestedUsers,
  "app.bsky.feed.getActorFeeds": { feeds: [] },
  "app.bsky.unspecced.getConfig": { checkEmailConfirmed: false },
  "app.bsky.unspecced.getPopularFeedGenerators": { feeds: [] },
  "app.bsky.unspecced.getSuggestedFeeds": { feeds: [] },
  "app.bsky.unspecced.getTrendingTopics": { topics: [], suggested: [] },
  "app.bsky.unspecced.getTrends": { trends: [] },
  "app.bsky.unspecced.getTaggedSuggestions": { suggestions: [] },
  "app.bsky.unspecced.getSuggestedStarterPacks": { starterPacks: [] },
  "app.bsky.unspecced.getOnboardingSuggestedStarterPacks": { starterPacks: [] },
  "app.bsky.unspecced.getSuggestedUsers": suggestedUsers,
  "app.bsky.unspecced.getSuggestedOnboardingUsers": suggestedUsers,
  "app.bsky.unspecced.getSuggestedUsersForDiscover": suggestedUsers,
  "app.bsky.unspecced.getSuggestedUsersForExplore": suggestedUsers,
  "app.bsky.unspecced.getSuggestedUsersForSeeMore": suggestedUsers,
  "app.bsky.unspecced.getSuggestionsSkeleton": suggestedUsers,
};

export const EMPTY_METHODS = Object.entries(EMPTY_ANSWERS).map(([nsid, answer]) =>
  method(nsid, { auth: "optional", apps: true }, () => Promise.resolve(structuredClone(answer)))
);

/**
 * Asked about one list or starter pack: the site has none, so whichever is named is not found, answered
 * as the app view answers an unknown one (after the lexicon has checked the at-uri it names).
 */
export const NONE_SUCH: Record<string, { auth: "optional" | "reader"; error: string; message: string }> = {
  "app.bsky.graph.getList": { auth: "optional", error: "InvalidRequest", message: "List not found" },
  "app.bsky.feed.getListFeed": { auth: "optional", error: "UnknownList", message: "List not found" },
  "app.bsky.graph.muteActorList": { auth: "reader", error: "InvalidRequest", message: "List not found" },
  "app.bsky.graph.unmuteActorList": { auth: "reader", error: "InvalidRequest", message: "List not found" },
  "app.bsky.graph.getStarterPack": { auth: "optional", error: "InvalidRequest", message: "Starter pack not found" },
};

export const NONE_SUCH_METHODS = Object.entries(NONE_SUCH).map(([nsid, answer]) =>
  method(nsid, { auth: answer.auth, apps: true }, () => Promise.reject(new XrpcError(400, answer.error, answer.message)))
);
