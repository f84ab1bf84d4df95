// Markdown -> rich-text documents (the content API's RichText field values).
//
// The markdown is parsed into an mdast tree (mdast-util-from-markdown with the GFM extensions, so
// tables parse), then mapped node by node to rich-text nodes under the rules the delivery clients
// rely on: every text node carries marks[] and data{}; list-item and blockquote content sits inside
// paragraphs; images become block-level embedded-asset-block nodes (a paragraph that holds an image
// is split around it); fenced code is a paragraph whose text has the code mark; links are hyperlinks;
// the empty document is document > paragraph > text ''.
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

export type MarkType = "bold" | "italic" | "code";

export interface RichTextMark {
  type: MarkType;
}

export interface RichTextText {
  nodeType: "text";
  value: string;
  marks: RichTextMark[];
  data: Record<string, never>;
}

export interface RichTextLink {
  sys: { type: "Link"; linkType: "Entry" | "Asset"; id: string };
}

export interface RichTextBlock {
  nodeType: string;
  data: Record<string, unknown>;
  content: RichTextNode[];
}

export type RichTextNode = RichTextBlock | RichTextText;

export interface RichTextDocument {
  nodeType: "document";
  data: Record<string, never>;
  content: RichTextBlock[];
}

export interface MarkdownToRichTextOptions {
  /** Maps an image's address (as written in the markdown) to an asset id; undefined keeps the image
   * as a hyperlink to that address instead of an embedded asset. */
  resolveAsset?: (src: string) => string | undefined;
}

// The slice of mdast this module reads (the mdast types package is not a direct dependency).
interface Md {
  type: string;
  children?: Md[];
  value?: string;
  depth?: number;
  ordered?: boolean;
  url?: string;
  alt?: string | null;
  title?: string | null;
  identifier?: string;
  label?: string | null;
}

const HEADINGS = ["heading-1", "heading-2", "heading-3", "heading-4", "heading-5", "heading-6"];

export function parseMarkdown(markdown: string): Md {
  return fromMarkdown(markdown, {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  }) as unknown as Md;
}

export function markdownToRichText(
  markdown: string,
  options: MarkdownToRichTextOptions = {},
): RichTextDocument {
  const root = parseMarkdown(markdown);
  const converter = new Converter(options, collectDefinitions(root));
  const content = converter.blocks(root.children ?? [], "document");
  return { nodeType: "document", data: {}, content: content.length ? content : [emptyParagraph()] };
}

export function text(value: string, marks: MarkType[] = []): RichTextText {
  return { nodeType: "text", value, marks: marks.map((type) => ({ type })), data: {} };
}

export function emptyDocument(): RichTextDocument {
  return { nodeType: "document", data: {}, content: [emptyParagraph()] };
}

function emptyParagraph(): RichTextBlock {
  return { nodeType: "paragraph", data: {}, content: [text("")] };
}

function block(nodeType: string, content: RichTextNode[], data: Record<string, unknown> = {}): RichTextBlock {
  return { nodeType, data, content };
}

function assetLink(id: string): RichTextLink {
  return { sys: { type: "Link", linkType: "Asset", id } };
}

/**
 * The document's text: inline text run together, blocks on lines of their own (for full-text search).
 * Whatever it is given (a stored document may predate any check) it reads what it can and never throws.
 */
export function richTextPlainText(node: RichTextNode | RichTextDocument): string {
  if (!node || typeof node !== "object") return "";
  if (node.nodeType === "text") {
    const value = (node as RichTextText).value;
    return typeof value === "string" ? value : "";
  }
  const content: unknown = (node as RichTextBlock).content;
  if (!Array.isArray(content)) return "";
  const nodeType = typeof node.nodeType === "string" ? node.nodeType : "";
  const inline = nodeType === "paragraph" || nodeType.endsWith("hyperlink") || nodeType.startsWith("heading-");
  const parts = content.map((child) => richTextPlainText(child));
  return inline ? parts.join("") : parts.filter((part) => part !== "").join("\n");
}

const HEADING_TYPES = ["heading-1", "heading-2", "heading-3", "heading-4", "heading-5", "heading-6"];
const INLINE_TYPES = ["text", "hyperlink", "entry-hyperlink", "asset-hyperlink", "embedded-entry-inline"];
const EMBEDDED_BLOCKS = ["embedded-entry-block", "embedded-asset-block"];
const LISTS = ["unordered-list", "ordered-list"];
const TOP_LEVEL = ["paragraph", ...HEADING_TYPES, ...LISTS, "hr", "blockquote", ...EMBEDDED_BLOCKS, "table"];

/**
 * The node kinds a document may hold and what each may contain, as the delivery clients' renderers
 * expect them: the spec's node list plus the entry embeds and hyperlinks the reference lists. Resource
 * links (embedded-resource-*) name other spaces, which a site does not have, so they are not taken.
 */
const CHILDREN: Record<string, readonly string[]> = {
  "document": TOP_LEVEL,
  "paragraph": INLINE_TYPES,
  ...Object.fromEntries(HEADING_TYPES.map((type) => [type, INLINE_TYPES])),
  "unordered-list": ["list-item"],
  "ordered-list": ["list-item"],
  "list-item": ["paragraph", ...HEADING_TYPES, ...LISTS, "hr", "blockquote", ...EMBEDDED_BLOCKS],
  "blockquote": ["paragraph"],
  "hr": [],
  "table": ["table-row"],
  "table-row": ["table-cell", "table-header-cell"],
  "table-cell": ["paragraph", ...LISTS],
  "table-header-cell": ["paragraph"],
  "hyperlink": ["text"],
  "entry-hyperlink": ["text"],
  "asset-hyperlink": ["text"],
  "embedded-entry-block": [],
  "embedded-asset-block": [],
  "embedded-entry-inline": [],
  "text": [],
};

/** Nodes whose data.target must be a link, and the kind of thing it links to. */
const TARGETS: Record<string, "Entry" | "Asset"> = {
  "embedded-entry-block": "Entry",
  "embedded-entry-inline": "Entry",
  "entry-hyperlink": "Entry",
  "embedded-asset-block": "Asset",
  "asset-hyperlink": "Asset",
};

export const RICH_TEXT_MARKS = ["bold", "italic", "underline", "code", "superscript", "subscript", "strikethrough"];

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Why `value` is not a rich-text document a client can render, or undefined when it is one: every node
 * a known kind in a place that kind may stand, with its data object and content list; text nodes with
 * a string value and marks of known types; hyperlinks with a uri; embeds and entry or asset hyperlinks
 * with a link target. The reason names the node (`content[0].content[2]`). Walks without recursion.
 */
export function richTextProblem(value: unknown): string | undefined {
  if (!isPlainObject(value) || value.nodeType !== "document") {
    return "a rich-text value is a document { nodeType: 'document', data: {}, content: [...] }";
  }
  const pending: { node: unknown; at: string; allowed: readonly string[] }[] = [
    { node: value, at: "the document", allowed: ["document"] },
  ];
  while (pending.length) {
    const { node, at, allowed } = pending.pop()!;
    if (!isPlainObject(node) || typeof node.nodeType !== "string") return `${at} is not a node { nodeType, data, content }`;
    const type = node.nodeType;
    if (!(type in CHILDREN)) return `${at} has the unknown nodeType ${JSON.stringify(type).slice(0, 60)}`;
    if (!allowed.includes(type)) return `${at}: a ${type} cannot stand there (it may hold ${allowed.join(", ")})`;
    if (!isPlainObject(node.data)) return `${at}: a ${type} needs a data object`;
    if (type === "text") {
      if (typeof node.value !== "string") return `${at}: a text node needs a string value`;
      if (!Array.isArray(node.marks)) return `${at}: a text node needs a marks list ([] for none)`;
      const mark = node.marks.find((m) => !isPlainObject(m) || !RICH_TEXT_MARKS.includes(m.type as string));
      if (mark !== undefined) return `${at}: a mark is one of { type: ${RICH_TEXT_MARKS.join(" | ")} }`;
      continue;
    }
    if (type === "hyperlink" && typeof node.data.uri !== "string") return `${at}: a hyperlink needs data.uri`;
    const linkType = TARGETS[type];
    if (linkType && !isLink(node.data.target, linkType)) {
      return `${at}: a ${type} needs data.target { sys: { type: 'Link', linkType: '${linkType}', id } }`;
    }
    if (!Array.isArray(node.content)) return `${at}: a ${type} needs a content list`;
    const children = CHILDREN[type];
    if (!children.length && node.content.length) return `${at}: a ${type} holds no content ([])`;
    for (let i = node.content.length - 1; i >= 0; i--) {
      const path = at === "the document" ? `content[${i}]` : `${at}.content[${i}]`;
      pending.push({ node: node.content[i], at: path, allowed: children });
    }
  }
  return undefined;
}

function isLink(value: unknown, linkType: "Entry" | "Asset"): boolean {
  const sys = isPlainObject(value) ? value.sys : undefined;
  return isPlainObject(sys) && sys.type === "Link" && sys.linkType === linkType && typeof sys.id === "string" &&
    sys.id !== "";
}

/** Every link target in a document, in document order, with the kind of node holding it. */
export function richTextTargets(node: unknown): { nodeType: string; linkType: "Entry" | "Asset"; id: string }[] {
  const found: { nodeType: string; linkType: "Entry" | "Asset"; id: string }[] = [];
  const walk = (n: unknown) => {
    if (!n || typeof n !== "object") return;
    const target = (n as { data?: { target?: RichTextLink } }).data?.target;
    if (target?.sys?.type === "Link" && typeof target.sys.id === "string") {
      const nodeType = String((n as { nodeType?: unknown }).nodeType);
      found.push({ nodeType, linkType: target.sys.linkType === "Asset" ? "Asset" : "Entry", id: target.sys.id });
    }
    const content = (n as { content?: unknown[] }).content;
    if (Array.isArray(content)) content.forEach(walk);
  };
  walk(node);
  return found;
}

/** Ids of the entries and assets a document links to (embedded blocks, inline embeds, hyperlinks). */
export function richTextLinks(node: unknown): { entries: string[]; assets: string[] } {
  const entries = new Set<string>();
  const assets = new Set<string>();
  for (const target of richTextTargets(node)) (target.linkType === "Asset" ? assets : entries).add(target.id);
  return { entries: [...entries], assets: [...assets] };
}

type Definitions = Map<string, { url: string; title?: string | null }>;

function collectDefinitions(root: Md): Definitions {
  const found: Definitions = new Map();
  const walk = (node: Md) => {
    if (node.type === "definition" && node.identifier && !found.has(node.identifier)) {
      found.set(node.identifier, { url: node.url ?? "", title: node.title });
    }
    node.children?.forEach(walk);
  };
  walk(root);
  return found;
}

/** An inline run: either rich-text inline nodes, or an image that must leave the paragraph. */
type Inline = RichTextNode | { image: Md };

type Container = "document" | "list-item" | "blockquote" | "table-cell";

class Converter {
  constructor(private options: MarkdownToRichTextOptions, private definitions: Definitions) {}

  /** Block children of a container, each mapped to the block kinds that container allows. */
  blocks(nodes: Md[], container: Container): RichTextBlock[] {
    const out: RichTextBlock[] = [];
    for (const node of nodes) out.push(...this.block(node, container));
    return out;
  }

  block(node: Md, container: Container): RichTextBlock[] {
    // A blockquote and a table cell hold paragraphs only: everything in them is flattened to paragraphs.
    const flat = container === "blockquote" || container === "table-cell";
    switch (node.type) {
      case "paragraph":
        return this.paragraphs("paragraph", node.children ?? []);
      case "heading": {
        const kind = flat ? "paragraph" : HEADINGS[Math.min(Math.max(node.depth ?? 1, 1), 6) - 1];
        return this.paragraphs(kind, node.children ?? []);
      }
      case "thematicBreak":
        return flat ? [] : [block("hr", [])];
      case "blockquote": {
        const inner = this.blocks(node.children ?? [], "blockquote");
        if (flat) return inner;
        // embedded assets cannot sit in a blockquote: they follow it
        const paragraphs = inner.filter((b) => b.nodeType === "paragraph");
        const after = inner.filter((b) => b.nodeType !== "paragraph");
        const out: RichTextBlock[] = [];
        if (paragraphs.length) out.push(block("blockquote", paragraphs));
        return [...out, ...after];
      }
      case "list": {
        if (flat) return (node.children ?? []).flatMap((item) => this.blocks(item.children ?? [], container));
        const items = (node.children ?? []).map((item) => {
          const content = this.blocks(item.children ?? [], "list-item");
          return block("list-item", content.length ? content : [emptyParagraph()]);
        });
        return [block(node.ordered ? "ordered-list" : "unordered-list", items)];
      }
      case "code":
        return [block("paragraph", [text(node.value ?? "", ["code"])])];
      case "html":
        return node.value?.trim() ? [block("paragraph", [text(node.value)])] : [];
      case "table": {
        if (container !== "document") {
          // a table may only sit at the top of a document: elsewhere each row becomes a paragraph
          return (node.children ?? []).flatMap((row) => {
            const cells = (row.children ?? []).map((cell) => this.inlineText(cell.children ?? []));
            return [block("paragraph", [text(cells.join(" | "))])];
          });
        }
        const rows = (node.children ?? []).map((row, index) =>
          block(
            "table-row",
            (row.children ?? []).map((cell) => {
              const content = this.paragraphs("paragraph", cell.children ?? [])
                .filter((b) => b.nodeType === "paragraph");
              return block(
                index === 0 ? "table-header-cell" : "table-cell",
                content.length ? content : [emptyParagraph()],
              );
            }),
          )
        );
        return [block("table", rows)];
      }
      case "footnoteDefinition":
        return this.blocks(node.children ?? [], container === "list-item" ? "list-item" : container);
      case "definition":
      case "yaml":
        return [];
      default:
        // anything else that reaches block level (a stray inline, an unknown extension node)
        if (node.children) return this.paragraphs("paragraph", [node]);
        return node.value ? [block("paragraph", [text(node.value)])] : [];
    }
  }

  /** A paragraph-like block from inline content, split around images (which become embedded assets). */
  paragraphs(kind: string, children: Md[]): RichTextBlock[] {
    const out: RichTextBlock[] = [];
    let run: RichTextNode[] = [];
    const flush = () => {
      const trimmed = trimRun(run);
      if (trimmed.length) out.push(block(kind, trimmed));
      run = [];
    };
    for (const item of this.inlines(children, [])) {
      if ("image" in item) {
        const embedded = this.image(item.image);
        if (embedded.nodeType === "embedded-asset-block") {
          flush();
          out.push(embedded);
        } else {
          run.push(embedded);
        }
      } else {
        run.push(item);
      }
    }
    flush();
    // a paragraph that held nothing but whitespace is dropped, except a heading written with no text
    return out;
  }

  image(node: Md): RichTextNode {
    const src = node.url ?? "";
    const id = src ? this.options.resolveAsset?.(src) : undefined;
    if (id) return block("embedded-asset-block", [], { target: assetLink(id) });
    return block("hyperlink", [text(node.alt || src)], { uri: src });
  }

  inlines(nodes: Md[], marks: MarkType[]): Inline[] {
    const out: Inline[] = [];
    for (const node of nodes) {
      switch (node.type) {
        case "text":
          pushText(out, node.value ?? "", marks);
          break;
        case "strong":
          out.push(...this.inlines(node.children ?? [], addMark(marks, "bold")));
          break;
        case "emphasis":
          out.push(...this.inlines(node.children ?? [], addMark(marks, "italic")));
          break;
        case "inlineCode":
          pushText(out, node.value ?? "", addMark(marks, "code"));
          break;
        case "break":
          pushText(out, "\n", marks);
          break;
        case "delete":
          out.push(...this.inlines(node.children ?? [], marks));
          break;
        case "link":
          out.push(this.hyperlink(node.url ?? "", node.children ?? [], marks));
          break;
        case "linkReference": {
          const def = this.definitions.get(node.identifier ?? "");
          if (def) out.push(this.hyperlink(def.url, node.children ?? [], marks));
          else out.push(...this.inlines(node.children ?? [], marks));
          break;
        }
        case "image":
          out.push({ image: node });
          break;
        case "imageReference": {
          const def = this.definitions.get(node.identifier ?? "");
          if (def) out.push({ image: { type: "image", url: def.url, alt: node.alt } });
          else pushText(out, node.alt ?? "", marks);
          break;
        }
        case "footnoteReference":
          pushText(out, `[^${node.label ?? node.identifier ?? ""}]`, marks);
          break;
        case "html":
          pushText(out, node.value ?? "", marks);
          break;
        default:
          if (node.children) out.push(...this.inlines(node.children, marks));
          else if (node.value) pushText(out, node.value, marks);
      }
    }
    return out;
  }

  /** A hyperlink holds text only: nested images become their alt text. */
  hyperlink(uri: string, children: Md[], marks: MarkType[]): RichTextBlock {
    const content: RichTextNode[] = [];
    for (const item of this.inlines(children, marks)) {
      if ("image" in item) pushText(content, item.image.alt ?? "", marks);
      else if (item.nodeType === "text") {
        pushText(content, (item as RichTextText).value, marksOf(item as RichTextText));
      } else content.push(...(item as RichTextBlock).content);
    }
    return block("hyperlink", content.length ? content : [text(uri)], { uri });
  }

  inlineText(nodes: Md[]): string {
    return this.inlines(nodes, []).map((item) => {
      if ("image" in item) return item.image.alt ?? "";
      return richTextPlainText(item);
    }).join("");
  }
}

function addMark(marks: MarkType[], mark: MarkType): MarkType[] {
  return marks.includes(mark) ? marks : [...marks, mark];
}

function marksOf(node: RichTextText): MarkType[] {
  return node.marks.map((m) => m.type);
}

/** Appends text, merging with the previous text node when the marks are the same. */
function pushText(out: Inline[] | RichTextNode[], value: string, marks: MarkType[]): void {
  if (value === "") return;
  const last = out[out.length - 1] as Inline | undefined;
  if (
    last && !("image" in last) && last.nodeType === "text" && sameMarks(marksOf(last as RichTextText), marks)
  ) {
    (last as RichTextText).value += value;
    return;
  }
  (out as Inline[]).push(text(value, marks));
}

function sameMarks(a: MarkType[], b: MarkType[]): boolean {
  return a.length === b.length && a.every((m, i) => m === b[i]);
}

/** Drops the whitespace a split left at the edges of a paragraph; an all-blank run becomes nothing. */
function trimRun(run: RichTextNode[]): RichTextNode[] {
  const nodes = run.slice();
  const isText = (n: RichTextNode | undefined): n is RichTextText => n?.nodeType === "text";
  while (nodes.length && isText(nodes[0]) && nodes[0].value.trim() === "") nodes.shift();
  while (
    nodes.length && isText(nodes[nodes.length - 1]) &&
    (nodes[nodes.length - 1] as RichTextText).value.trim() === ""
  ) {
    nodes.pop();
  }
  if (!nodes.length) return nodes;
  if (isText(nodes[0])) nodes[0] = { ...nodes[0], value: nodes[0].value.replace(/^\s+/, "") };
  const lastIndex = nodes.length - 1;
  const last = nodes[lastIndex];
  if (isText(last)) nodes[lastIndex] = { ...last, value: last.value.replace(/\s+$/, "") };
  return nodes;
}
