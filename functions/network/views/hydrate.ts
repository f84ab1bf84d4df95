// From rows to the views apps validate (app.bsky.actor.defs, app.bsky.feed.defs, the embed views). A
// Hydrator belongs to one request: it loads people and posts in batches (one statement per batch, whatever
// its size) and then builds views from what it holds, so a page never costs a query per item.
import type { Tx } from "../../../shared/db.ts";
import { atUri, didOf, handleOf } from "../identity.ts";
import { type BlobRefJson, BLOCK, FOLLOW, LIKE, POST, REPOST } from "../records.ts";
import type { Call } from "../xrpc/method.ts";
import { type ActorRow, actorsByIds } from "../store/reader/actors.ts";
import { type PostRow, postsByIds } from "../store/reader/posts.ts";
import type { FeedItem } from "../store/reader/feeds.ts";
import { BLOB_SECRET, blobUrl } from "../blobs.ts";

type Json = Record<string, unknown>;

/** Cuts a string to a number of graphemes (the lexicons count graphemes). */
export function graphemes(text: string, max: number): string {
  const segments = [...new Intl.Segmenter().segment(text)];
  return segments.length <= max ? text : segments.slice(0, max).map((s) => s.segment).join("");
}

export class Hydrator {
  readonly actors = new Map<string, ActorRow>();
  readonly posts = new Map<number, PostRow>();
  private readonly viewerId: string | undefined;

  constructor(readonly call: Call, readonly tx: Tx) {
    this.viewerId = call.viewer?.id;
  }

  get domain(): string {
    return this.call.site.handleDomain;
  }

  /** Loads the people not loaded yet (counts: for profileViewDetailed). */
  async loadActors(ids: Iterable<string>, options: { counts?: boolean } = {}): Promise<void> {
    const missing = [...ids].filter((id) => options.counts || !this.actors.has(id));
    for (const [id, row] of await actorsByIds(this.tx, missing, this.viewerId, options)) this.actors.set(id, row);
  }

  /** Loads posts with the posts they answer and quote, then every author among them. */
  async loadPosts(ids: Iterable<number>, extraActors: Iterable<string> = []): Promise<void> {
    const missing = [...ids].filter((id) => !this.posts.has(id));
    for (const [id, row] of await postsByIds(this.tx, missing, this.viewerId, { related: true })) this.posts.set(id, row);
    await this.loadActors([...[...this.posts.values()].map((p) => p.author_id), ...extraActors]);
  }

  didOf(id: string): string | undefined {
    const actor = this.actors.get(id);
    return actor ? didOf(actor, this.domain) : undefined;
  }

  /** Whether the reader and this person block each other (either way). */
  blockedWith(id: string): boolean {
    const actor = this.actors.get(id);
    return !!actor && (!!actor.blocking || actor.blocked_by);
  }

  pictureUrl(owner: string, cid: string): Promise<string> {
    return Promise.resolve(blobUrl(this.call.ctx, owner, cid));
  }

  private viewerState(actor: ActorRow): Json {
    if (!this.viewerId) return {};
    const did = didOf(actor, this.domain);
    const me = this.call.viewer!.did;
    return {
      muted: actor.muted,
      blockedBy: actor.blocked_by,
      ...(actor.blocking ? { blocking: atUri(me, BLOCK, actor.blocking) } : {}),
      ...(actor.following ? { following: atUri(me, FOLLOW, actor.following) } : {}),
      ...(actor.followed_by ? { followedBy: atUri(did, FOLLOW, actor.followed_by) } : {}),
    };
  }

  async profileBasic(id: string): Promise<Json | undefined> {
    const actor = this.actors.get(id);
    if (!actor) return undefined;
    const displayName = actor.display_name ? graphemes(actor.display_name, 64) : undefined;
    return {
      did: didOf(actor, this.domain),
      handle: handleOf(actor, this.domain),
      ...(displayName ? { displayName } : {}),
      ...(actor.avatar_cid ? { avatar: await this.pictureUrl(actor.id, actor.avatar_cid) } : {}),
      viewer: this.viewerState(actor),
      labels: [],
      createdAt: actor.created_at.toISOString(),
    };
  }

  async profile(id: string): Promise<Json | undefined> {
    const basic = await this.profileBasic(id);
    if (!basic) return undefined;
    const actor = this.actors.get(id)!;
    return {
      ...basic,
      ...(actor.description ? { description: graphemes(actor.description, 256) } : {}),
      indexedAt: actor.created_at.toISOString(),
    };
  }

  async profileDetailed(id: string): Promise<Json | undefined> {
    const view = await this.profile(id);
    if (!view) return undefined;
    const actor = this.actors.get(id)!;
    return {
      ...view,
      ...(actor.banner_cid ? { banner: await this.pictureUrl(actor.id, actor.banner_cid) } : {}),
      followersCount: actor.followers_count ?? 0,
      followsCount: actor.follows_count ?? 0,
      postsCount: actor.posts_count ?? 0,
    };
  }

  postUri(post: PostRow): string {
    return atUri(this.didOf(post.author_id)!, POST, post.rkey);
  }

  /** A post the reader may see with a visible author; undefined otherwise. */
  visiblePost(id: number | null | undefined): PostRow | undefined {
    const post = id == null ? undefined : this.posts.get(id);
    return post && this.actors.has(post.author_id) ? post : undefined;
  }

  async postView(id: number): Promise<Json | undefined> {
    const post = this.visiblePost(id);
    if (!post) return undefined;
    const author = await this.profileBasic(post.author_id);
    const embed = await this.embedView(post);
    const me = this.call.viewer?.did;
    return {
      uri: this.postUri(post),
      cid: post.cid,
      author,
      record: post.record,
      ...(embed ? { embed } : {}),
      replyCount: post.reply_count,
      repostCount: post.repost_count,
      likeCount: post.like_count,
      quoteCount: post.quote_count,
      indexedAt: post.indexed_at.toISOString(),
      viewer: me
        ? {
          ...(post.viewer_like ? { like: atUri(me, LIKE, post.viewer_like) } : {}),
          ...(post.viewer_repost ? { repost: atUri(me, REPOST, post.viewer_repost) } : {}),
          threadMuted: post.viewer_thread_muted,
        }
        : {},
      labels: [],
    };
  }

  /** A post where a thread or reply context names it: the view, or notFound / blocked in its place. */
  async postOrGap(id: number | null, uri: string): Promise<Json> {
    const post = this.visiblePost(id);
    if (!post) return { $type: "app.bsky.feed.defs#notFoundPost", uri, notFound: true };
    if (this.blockedWith(post.author_id)) return this.blockedPost(post);
    return { $type: "app.bsky.feed.defs#postView", ...(await this.postView(post.id))! };
  }

  blockedPost(post: PostRow): Json {
    const actor = this.actors.get(post.author_id)!;
    return {
      $type: "app.bsky.feed.defs#blockedPost",
      uri: this.postUri(post),
      blocked: true,
      author: { did: didOf(actor, this.domain), viewer: this.viewerState(actor) },
    };
  }

  async feedViewPost(item: Pick<FeedItem, "kind" | "post_id" | "by_id" | "at">): Promise<Json | undefined> {
    const post = this.visiblePost(item.post_id);
    if (!post) return undefined;
    const view: Json = { post: await this.postView(post.id) };
    const reply = post.record.reply as { root?: { uri: string }; parent?: { uri: string } } | undefined;
    if (reply?.root && reply.parent) {
      const parent = await this.postOrGap(post.reply_parent_id, reply.parent.uri);
      const parentRow = this.visiblePost(post.reply_parent_id);
      const grandparent = this.visiblePost(parentRow?.reply_parent_id);
      view.reply = {
        root: await this.postOrGap(post.reply_root_id, reply.root.uri),
        parent,
        ...(grandparent ? { grandparentAuthor: await this.profileBasic(grandparent.author_id) } : {}),
      };
    }
    if (item.kind === "r" && item.by_id) {
      const by = await this.profileBasic(item.by_id);
      if (!by) return undefined;
      view.reason = { $type: "app.bsky.feed.defs#reasonRepost", by, indexedAt: item.at.toISOString() };
    }
    return view;
  }

  async feed(items: FeedItem[]): Promise<Json[]> {
    const views = await Promise.all(items.map((item) => this.feedViewPost(item)));
    return views.filter((v): v is Json => !!v);
  }

  private async imagesView(owner: string, embed: Json): Promise<Json> {
    const images = (embed.images ?? []) as { image: BlobRefJson; alt?: string; aspectRatio?: Json }[];
    return {
      $type: "app.bsky.embed.images#view",
      images: await Promise.all(images.map(async (image) => {
        const url = await this.pictureUrl(owner, image.image.ref.$link);
        return { thumb: url, fullsize: url, alt: image.alt ?? "", ...(image.aspectRatio ? { aspectRatio: image.aspectRatio } : {}) };
      })),
    };
  }

  private async mediaView(owner: string, media: Json): Promise<Json | undefined> {
    switch (media.$type) {
      case "app.bsky.embed.images":
        return await this.imagesView(owner, media);
      case "app.bsky.embed.video": {
        const video = media.video as BlobRefJson;
        return {
          $type: "app.bsky.embed.video#view",
          cid: video.ref.$link,
          playlist: await this.pictureUrl(owner, video.ref.$link),
          ...(media.alt ? { alt: media.alt } : {}),
          ...(media.aspectRatio ? { aspectRatio: media.aspectRatio } : {}),
        };
      }
      case "app.bsky.embed.external": {
        const external = media.external as { uri: string; title: string; description: string; thumb?: BlobRefJson };
        return {
          $type: "app.bsky.embed.external#view",
          external: {
            uri: external.uri,
            title: external.title,
            description: external.description,
            ...(external.thumb ? { thumb: await this.pictureUrl(owner, external.thumb.ref.$link) } : {}),
          },
        };
      }
    }
    return undefined;
  }

  /** The quoted post as embed.record#view sees it: the record, or not found, or blocked. */
  private async quotedView(post: PostRow, uri: string): Promise<Json> {
    const quoted = this.visiblePost(post.quote_id);
    if (!quoted) return { $type: "app.bsky.embed.record#viewNotFound", uri, notFound: true };
    if (this.blockedWith(quoted.author_id)) {
      const actor = this.actors.get(quoted.author_id)!;
      return {
        $type: "app.bsky.embed.record#viewBlocked",
        uri,
        blocked: true,
        author: { did: didOf(actor, this.domain), viewer: this.viewerState(actor) },
      };
    }
    return {
      $type: "app.bsky.embed.record#viewRecord",
      uri: this.postUri(quoted),
      cid: quoted.cid,
      author: await this.profileBasic(quoted.author_id),
      value: quoted.record,
      labels: [],
      likeCount: quoted.like_count,
      replyCount: quoted.reply_count,
      repostCount: quoted.repost_count,
      quoteCount: quoted.quote_count,
      indexedAt: quoted.indexed_at.toISOString(),
    };
  }

  async embedView(post: PostRow): Promise<Json | undefined> {
    const embed = post.embed;
    if (!embed) return undefined;
    if (embed.$type === "app.bsky.embed.record") {
      const uri = (embed.record as { uri: string }).uri;
      return { $type: "app.bsky.embed.record#view", record: await this.quotedView(post, uri) };
    }
    if (embed.$type === "app.bsky.embed.recordWithMedia") {
      const uri = ((embed.record as Json).record as { uri: string }).uri;
      const media = await this.mediaView(post.author_id, embed.media as Json);
      if (!media) return undefined;
      return {
        $type: "app.bsky.embed.recordWithMedia#view",
        record: { record: await this.quotedView(post, uri) },
        media,
      };
    }
    return await this.mediaView(post.author_id, embed);
  }
}

/** Runs a read as the reader, with a Hydrator over that reader's transaction. */
export async function read<T>(call: Call, fn: (h: Hydrator) => Promise<T>): Promise<T> {
  // the signing secret is read (and cached) before the transaction opens: read inside it, it would need
  // a second connection, which an embedded database gives only once the transaction has ended
  await call.ctx.secrets.get(BLOB_SECRET);
  return await call.asReader((tx) => fn(new Hydrator(call, tx)));
}
