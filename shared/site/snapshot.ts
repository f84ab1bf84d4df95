// The shapes a content directory reads into (a SiteSnapshot and its entries, assets and models), and the
// error that names the file a directory cannot be read at. The reader (./content-dir.ts), the record
// coercion (./record-entry.ts) and the import (./import.ts) share them.
import type { SiteConfig, SiteMode } from "./config.ts";
import type { Model } from "./models.ts";

export const ACCESS_LEVELS = ["guest", "member", "supporter", "staff"] as const;
export type Access = typeof ACCESS_LEVELS[number];

export interface Link {
  sys: { type: "Link"; linkType: "Entry" | "Asset"; id: string };
}

/** One entry (both stages share it; `published` says whether the published row exists). */
export interface EntrySnapshot {
  id: string;
  modelId: string;
  /** The record's file, relative to the content directory (records/articles/hello.md). */
  path: string;
  access: Access;
  published: boolean;
  /** fields[fieldId][localeCode] = value, in the content type's field order; empty fields are absent. */
  fields: Record<string, Record<string, unknown>>;
  links: string[];
  assetLinks: string[];
  searchText: string;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
  /** The record's files (the default-locale file first, then its locale siblings). */
  files: string[];
}

export interface AssetSnapshot {
  id: string;
  /** Library path (media/photos/harbor.jpg), or the address of a picture a record names elsewhere. */
  path: string;
  fileName: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  title: Record<string, string>;
  description: Record<string, string>;
  contentHash: string;
  storageKey: string;
  /** true for a picture named by its address (http...), which has no bytes in the library. */
  external: boolean;
  bytes?: Uint8Array;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface ModelSnapshot extends Model {
  position: number;
}

export interface SiteSnapshot {
  dir: string;
  config: SiteConfig;
  mode: SiteMode;
  models: ModelSnapshot[];
  entries: EntrySnapshot[];
  assets: AssetSnapshot[];
  warnings: string[];
}

/** A content directory that cannot be read; the message names the file and the reason. */
export class SiteImportError extends Error {
  constructor(message: string, readonly file?: string) {
    super(message);
  }
}

// --------------------------------------------------------------------------------------------- records

export interface RecordFiles {
  base: string;
  folder: string;
  /** path inside the model folder without extension (guides/setup) */
  rel: string;
  siblings: Map<string, string>; // locale -> file
}

export interface ParsedFile {
  file: string;
  data: Record<string, unknown>;
  body: string;
}

/** What reading a record needs of the site's configuration. */
export type LocaleConfig = Pick<SiteConfig, "defaultLocale" | "locales">;

/** A file of the media library as links resolve against it. */
export type LibraryFile = Pick<AssetSnapshot, "id" | "path">;

export interface RecordText {
  /** records/<folder>/<path>.md, and <path>.<locale>.md beside it for another locale's values */
  path: string;
  text: string;
}
