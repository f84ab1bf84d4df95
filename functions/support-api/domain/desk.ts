// The desk's own texts, from the site's configuration (`support:` in site.yaml): its name, the default
// prompt a new conversation opens on (only when the site has one), and the acknowledgement that follows a
// contact's first line.
import type { SiteSettings } from "../../../shared/site.ts";

export interface DeskSettings {
  name: string;
  prompt?: { id: string; text: string };
  acknowledgement: string;
  websiteUrl: string;
}

export const DEFAULT_ACKNOWLEDGEMENT = "Thanks for your message. We will answer here as soon as we can.";

export function deskSettings(site: SiteSettings): DeskSettings {
  const support = (site.config?.support ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => typeof value === "string" && value.trim() ? value.trim() : undefined;
  const promptValue = support.prompt;
  let prompt: DeskSettings["prompt"];
  if (typeof promptValue === "string" && text(promptValue)) prompt = { id: "default", text: text(promptValue)! };
  else if (promptValue && typeof promptValue === "object" && text((promptValue as Record<string, unknown>).text)) {
    const p = promptValue as Record<string, unknown>;
    prompt = { id: text(p.id) ?? "default", text: text(p.text)! };
  }
  return {
    name: text(support.name) ?? site.name,
    prompt,
    acknowledgement: text(support.acknowledgement) ?? DEFAULT_ACKNOWLEDGEMENT,
    websiteUrl: `https://${site.domain}`,
  };
}
