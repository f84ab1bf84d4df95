// An offer of choices (content_type input_select, content_attributes { items: [{ title, value }], taken? })
// is taken once, through the widget's own door: the chosen item's title becomes the contact's line.

export interface ChoiceItem {
  title: string;
  value: unknown;
}

/** The offered item whose value is `value`, or why it cannot be taken. */
export function pickChoice(
  offer: { content_type: string; content_attributes: Record<string, unknown> },
  value: unknown,
): { item: ChoiceItem } | { problem: string; taken?: boolean } {
  if (offer.content_type !== "input_select") return { problem: "That message offers no choices." };
  if (offer.content_attributes.taken !== undefined && offer.content_attributes.taken !== null) {
    return { problem: "That offer has already been answered.", taken: true };
  }
  const items = Array.isArray(offer.content_attributes.items) ? offer.content_attributes.items as unknown[] : [];
  const item = items.find((candidate): candidate is ChoiceItem =>
    !!candidate && typeof candidate === "object" && typeof (candidate as ChoiceItem).title === "string" &&
    String((candidate as ChoiceItem).value) === String(value)
  );
  if (value === undefined || value === null || typeof value === "object") return { problem: "Give the chosen item's value." };
  if (!item) return { problem: "That value is not one of the offered choices." };
  return { item };
}
