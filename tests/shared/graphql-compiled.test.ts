// Compiled GraphQL runs (shared/graphql-compiled.ts) answer what graphql-js's execute answers, resolver
// errors included, and compile each operation of a document once.
import assert from "node:assert/strict";
import { execute, parse } from "graphql";
import { makeExecutableSchema } from "@graphql-tools/schema";
import { test } from "../helpers/test.ts";
import { compiledRun } from "../../shared/graphql-compiled.ts";

let calls = 0;
const schema = makeExecutableSchema({
  typeDefs: `type Query { items(first: Int!): [Item!]! broken: Int }
             type Item { id: ID! twice: Int! tags: [String!]! }`,
  resolvers: {
    Query: {
      items: (_: unknown, args: { first: number }) =>
        Promise.resolve(Array.from({ length: args.first }, (_, i) => ({ id: `i${i}`, n: i }))),
      broken: () => {
        throw new Error("no such thing");
      },
    },
    Item: {
      twice: (item: { n: number }) => (calls++, item.n * 2),
      tags: (item: { n: number }) => [`t${item.n}`],
    },
  },
});

test("a compiled run answers as execute does, errors at their paths included", async () => {
  const document = parse(`query Q($n: Int!) { items(first: $n) { id twice tags } broken }`);
  const variables = { n: 3 };
  const expected = await execute({ schema, document, variableValues: variables });
  const run = compiledRun(schema, document);
  const actual = await run(undefined, {}, variables);
  assert.equal(JSON.stringify(actual.data), JSON.stringify(expected.data));
  assert.deepEqual(
    actual.errors?.map((e) => [e.message, e.path]),
    expected.errors?.map((e) => [e.message, e.path]),
  );
  assert.equal(compiledRun(schema, document), run, "the operation is compiled once");
  calls = 0;
  await run(undefined, {}, { n: 5 });
  assert.equal(calls, 5, "every resolver still runs, once per field");
});

test("a run with leaves in wire form copies them as they are and still reports a leaf's error or null at its path", async () => {
  const wire = makeExecutableSchema({
    typeDefs: `enum Unit { KILOGRAMS GRAMS } scalar Decimal
               type Query { items: [Item!]! }
               type Item { id: ID! name: String! weight: Float unit: Unit! amount: Decimal! missing: String! }`,
    resolvers: {
      Query: { items: () => [{ id: "a", n: 1 }, { id: "b", n: 2 }] },
      Item: {
        name: (item: { id: string }) => `item ${item.id}`,
        weight: (item: { n: number }) => (item.n === 1 ? 0.5 : null),
        unit: () => "KILOGRAMS",
        amount: (item: { n: number }) => `${item.n}.0`,
        missing: (item: { n: number }) => (item.n === 1 ? "here" : null),
      },
    },
  });
  const document = parse(`{ items { id name weight unit amount missing } }`);
  const expected = await execute({ schema: wire, document });
  const actual = await compiledRun(wire, document, undefined, { leavesInWireForm: true })(undefined, {}, {});
  assert.equal(JSON.stringify(actual.data), JSON.stringify(expected.data));
  assert.deepEqual(
    actual.errors?.map((e) => [e.message, e.path]),
    expected.errors?.map((e) => [e.message, e.path]),
  );
  assert.equal(actual.errors?.length, 1, "the second item's missing non-null name is an error");
});
