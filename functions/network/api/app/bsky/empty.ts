// What the site has none of (spec: labelers, unspecced, lists, starter packs are empty): each method
// answers its own lexicon's empty shape, so apps show an empty panel instead of an error. One file for
// all of them because they share one behaviour; every answer is checked against its lexicon in the tests.
import { method } from "../../../xrpc/method.ts";

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
