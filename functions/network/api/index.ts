// Every wire method the site serves, one file each, named as on the wire. A method not listed here
// answers 501 MethodNotImplemented (chat.bsky.* among them: direct messages are the spaces').
import type { Method } from "../xrpc/method.ts";
import applyWrites from "./com/atproto/repo/applyWrites.ts";
import checkAccountStatus from "./com/atproto/server/checkAccountStatus.ts";
import createAccount from "./com/atproto/server/createAccount.ts";
import createAppPassword from "./com/atproto/server/createAppPassword.ts";
import createRecord from "./com/atproto/repo/createRecord.ts";
import createSession from "./com/atproto/server/createSession.ts";
import deleteRecord from "./com/atproto/repo/deleteRecord.ts";
import deleteSession from "./com/atproto/server/deleteSession.ts";
import describeServer from "./com/atproto/server/describeServer.ts";
import getSession from "./com/atproto/server/getSession.ts";
import listAppPasswords from "./com/atproto/server/listAppPasswords.ts";
import putRecord from "./com/atproto/repo/putRecord.ts";
import refreshSession from "./com/atproto/server/refreshSession.ts";
import resolveHandle from "./com/atproto/identity/resolveHandle.ts";
import revokeAppPassword from "./com/atproto/server/revokeAppPassword.ts";
import updateHandle from "./com/atproto/identity/updateHandle.ts";
import uploadBlob from "./com/atproto/repo/uploadBlob.ts";
import syncGetBlob from "./com/atproto/sync/getBlob.ts";
import syncGetLatestCommit from "./com/atproto/sync/getLatestCommit.ts";
import syncGetRecord from "./com/atproto/sync/getRecord.ts";
import syncGetRepo from "./com/atproto/sync/getRepo.ts";
import syncGetRepoStatus from "./com/atproto/sync/getRepoStatus.ts";
import syncListRepos from "./com/atproto/sync/listRepos.ts";
import actorGetPreferences from "./app/bsky/actor/getPreferences.ts";
import actorGetProfile from "./app/bsky/actor/getProfile.ts";
import actorGetProfiles from "./app/bsky/actor/getProfiles.ts";
import actorPutPreferences from "./app/bsky/actor/putPreferences.ts";
import actorSearchActors from "./app/bsky/actor/searchActors.ts";
import actorSearchActorsTypeahead from "./app/bsky/actor/searchActorsTypeahead.ts";
import feedDescribeFeedGenerator from "./app/bsky/feed/describeFeedGenerator.ts";
import feedGetAuthorFeed from "./app/bsky/feed/getAuthorFeed.ts";
import feedGetFeed from "./app/bsky/feed/getFeed.ts";
import feedGetFeedGenerator from "./app/bsky/feed/getFeedGenerator.ts";
import feedGetFeedGenerators from "./app/bsky/feed/getFeedGenerators.ts";
import feedGetFeedSkeleton from "./app/bsky/feed/getFeedSkeleton.ts";
import feedGetLikes from "./app/bsky/feed/getLikes.ts";
import feedGetPostThread from "./app/bsky/feed/getPostThread.ts";
import feedGetPosts from "./app/bsky/feed/getPosts.ts";
import feedGetRepostedBy from "./app/bsky/feed/getRepostedBy.ts";
import feedGetSuggestedFeeds from "./app/bsky/feed/getSuggestedFeeds.ts";
import feedGetTimeline from "./app/bsky/feed/getTimeline.ts";
import graphGetBlocks from "./app/bsky/graph/getBlocks.ts";
import graphGetFollowers from "./app/bsky/graph/getFollowers.ts";
import graphGetFollows from "./app/bsky/graph/getFollows.ts";
import graphGetMutes from "./app/bsky/graph/getMutes.ts";
import graphGetRelationships from "./app/bsky/graph/getRelationships.ts";
import graphMuteActor from "./app/bsky/graph/muteActor.ts";
import graphUnmuteActor from "./app/bsky/graph/unmuteActor.ts";
import notificationGetUnreadCount from "./app/bsky/notification/getUnreadCount.ts";
import notificationListNotifications from "./app/bsky/notification/listNotifications.ts";
import notificationUpdateSeen from "./app/bsky/notification/updateSeen.ts";
import repoDescribeRepo from "./com/atproto/repo/describeRepo.ts";
import repoGetRecord from "./com/atproto/repo/getRecord.ts";
import repoListRecords from "./com/atproto/repo/listRecords.ts";
import feedGetActorLikes from "./app/bsky/feed/getActorLikes.ts";
import feedGetQuotes from "./app/bsky/feed/getQuotes.ts";
import feedSearchPosts from "./app/bsky/feed/searchPosts.ts";
import graphGetKnownFollowers from "./app/bsky/graph/getKnownFollowers.ts";
import graphMuteThread from "./app/bsky/graph/muteThread.ts";
import graphUnmuteThread from "./app/bsky/graph/unmuteThread.ts";
import { EMPTY_METHODS, NONE_SUCH_METHODS } from "./app/bsky/empty.ts";

export const METHODS: Method[] = [
  // com.atproto.identity
  resolveHandle,
  updateHandle,
  // com.atproto.repo
  repoDescribeRepo,
  repoGetRecord,
  repoListRecords,
  applyWrites,
  createRecord,
  deleteRecord,
  putRecord,
  uploadBlob,
  // com.atproto.server
  checkAccountStatus,
  createAccount,
  createAppPassword,
  createSession,
  deleteSession,
  describeServer,
  getSession,
  listAppPasswords,
  refreshSession,
  revokeAppPassword,
  // com.atproto.sync (federation; the stream itself is routed in app.ts)
  syncGetBlob,
  syncGetLatestCommit,
  syncGetRecord,
  syncGetRepo,
  syncGetRepoStatus,
  syncListRepos,
  // app.bsky.* (reads: 13b)
  // app.bsky.actor
  actorGetPreferences,
  actorGetProfile,
  actorGetProfiles,
  actorPutPreferences,
  actorSearchActors,
  actorSearchActorsTypeahead,
  // app.bsky.feed
  feedDescribeFeedGenerator,
  feedGetActorLikes,
  feedGetAuthorFeed,
  feedGetFeed,
  feedGetFeedGenerator,
  feedGetFeedGenerators,
  feedGetFeedSkeleton,
  feedGetLikes,
  feedGetPostThread,
  feedGetPosts,
  feedGetQuotes,
  feedGetRepostedBy,
  feedGetSuggestedFeeds,
  feedGetTimeline,
  feedSearchPosts,
  // app.bsky.graph
  graphGetBlocks,
  graphGetFollowers,
  graphGetFollows,
  graphGetKnownFollowers,
  graphGetMutes,
  graphGetRelationships,
  graphMuteActor,
  graphMuteThread,
  graphUnmuteActor,
  graphUnmuteThread,
  // app.bsky.notification
  notificationGetUnreadCount,
  notificationListNotifications,
  notificationUpdateSeen,
  // what the site has none of (empty answers)
  ...EMPTY_METHODS,
  ...NONE_SUCH_METHODS,
];

export function methodTable(): Map<string, Method> {
  const table = new Map<string, Method>();
  for (const m of METHODS) {
    if (table.has(m.nsid)) throw new Error(`${m.nsid} is listed twice`);
    table.set(m.nsid, m);
  }
  return table;
}
