// Rich text (a record's body) as the HTML fragment descriptionHtml carries. Text is escaped; links keep
// only http(s), mailto and site-relative addresses; embedded entries and assets have no HTML here.
import { escapeHtml } from "../../../shared/html.ts";
import type { RichTextDocument } from "../../../shared/richtext.ts";

interface Node {
  nodeType: string;
  value?: string;
  marks?: { type: string }[];
  data?: { uri?: string };
  content?: Node[];
}

const BLOCKS: Record<string, string> = {
  paragraph: "p",
  "heading-1": "h1",
  "heading-2": "h2",
  "heading-3": "h3",
  "heading-4": "h4",
  "heading-5": "h5",
  "heading-6": "h6",
  "unordered-list": "ul",
  "ordered-list": "ol",
  "list-item": "li",
  blockquote: "blockquote",
  table: "table",
  "table-row": "tr",
  "table-header-cell": "th",
  "table-cell": "td",
};
const MARKS: Record<string, string> = { bold: "strong", italic: "em", code: "code" };

function render(node: Node): string {
  if (node.nodeType === "text") {
    return (node.marks ?? []).reduce((html, mark) => {
      const tag = MARKS[mark.type];
      return tag ? `<${tag}>${html}</${tag}>` : html;
    }, escapeHtml(node.value ?? ""));
  }
  const inner = (node.content ?? []).map(render).join("");
  if (node.nodeType === "hr") return "<hr>";
  if (node.nodeType === "hyperlink") {
    const uri = node.data?.uri ?? "";
    return /^(https?:|mailto:|\/)/i.test(uri) ? `<a href="${escapeHtml(uri)}">${inner}</a>` : inner;
  }
  if (node.nodeType === "table") return `<table><tbody>${inner}</tbody></table>`;
  const tag = BLOCKS[node.nodeType];
  return tag ? `<${tag}>${inner}</${tag}>` : inner;
}

export function richTextHtml(document: RichTextDocument | null): string {
  return document ? render(document as unknown as Node) : "";
}
