// GraphQL `where` and `order` arguments to the collection plan's Condition and Order (the same plan REST's
// query parser makes, so the SQL is store.ts's). Names are looked up in the schema plan's dictionaries,
// never parsed back: `title_not_in` is whatever the plan said it was.
import type { Condition, Filter, Order } from "../domain/entry-query.ts";
import type { SchemaPlan } from "./plan.ts";

function text(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/** A where input of input type `type` (already checked by GraphQL against the schema). */
export function toCondition(plan: SchemaPlan, type: string, input: Record<string, unknown>): Condition {
  const specs = plan.filters.get(type);
  const conditions: Condition[] = [];
  for (const [name, value] of Object.entries(input)) {
    const spec = specs?.get(name);
    if (!spec || value === null || value === undefined) continue;
    switch (spec.kind) {
      case "and":
      case "or":
        conditions.push({
          kind: spec.kind,
          conditions: (value as (Record<string, unknown> | null)[]).filter((v) => v !== null)
            .map((v) => toCondition(plan, spec.type, v!)),
        });
        break;
      case "object":
        conditions.push(toCondition(plan, spec.type, value as Record<string, unknown>));
        break;
      case "nested":
        conditions.push({
          kind: "linked",
          field: spec.field,
          list: spec.list,
          contentTypes: spec.contentTypes,
          where: toCondition(plan, spec.type, value as Record<string, unknown>),
        });
        break;
      case "text": {
        const words = text(value).split(/\s+/).filter(Boolean);
        const found: Condition = { kind: "text", field: spec.field, words };
        conditions.push(spec.negate ? { kind: "not", condition: found } : found);
        break;
      }
      case "leaf": {
        const raw = Array.isArray(value) ? value.filter((v) => v !== null) : [value];
        // sys.publishedVersion is revision × 2: compare revisions with the value halved
        const values = raw.map((v) => (spec.scale ? String(Number(v) * spec.scale) : text(v)));
        const filter: Filter = { target: spec.target, op: spec.op, values };
        const leaf: Condition = { kind: "filter", filter };
        conditions.push(spec.negate ? { kind: "not", condition: leaf } : leaf);
        break;
      }
    }
  }
  return { kind: "and", conditions };
}

/** An order argument (a list of enum value names) of enum `type`. */
export function toOrders(plan: SchemaPlan, type: string, values: unknown): Order[] {
  if (!Array.isArray(values)) return values ? toOrders(plan, type, [values]) : [];
  const orders = plan.orders.get(type);
  return values.filter((v) => typeof v === "string" && orders?.has(v)).map((v) => orders!.get(v as string)!);
}
