// Finds the links inside entry fields (any depth: arrays, locale maps, rich-text targets).
export interface LinkRef {
  linkType: "Entry" | "Asset";
  id: string;
}

export function collectLinks(value: unknown, into: LinkRef[] = []): LinkRef[] {
  if (Array.isArray(value)) {
    for (const item of value) collectLinks(item, into);
  } else if (value && typeof value === "object") {
    const sys = (value as { sys?: { type?: string; linkType?: string; id?: string } }).sys;
    if (sys?.type === "Link" && (sys.linkType === "Entry" || sys.linkType === "Asset") && typeof sys.id === "string") {
      into.push({ linkType: sys.linkType, id: sys.id });
      return into;
    }
    for (const child of Object.values(value)) collectLinks(child, into);
  }
  return into;
}
