import assert from "node:assert/strict";
import { ServiceError } from "../../actors/kernel/mod.ts";
import { CursorCodec } from "../../routes/http/cursor.ts";

const codec = new CursorCodec("cursor-test-secret");

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    assert.equal(error.code, "invalid_request");
    return error.message;
  }
  throw new Error("expected the cursor to be refused");
}

Deno.test("plain positions round-trip through a cursor", () => {
  for (
    const position of [{ s: "snap-1", k: 12.5, i: "polymarket-1" }, 42, "x", [1, "a", null], { k: null }]
  ) {
    assert.deepEqual(codec.decode("q1", codec.encode("q1", position)), position);
  }
});

Deno.test("typed positions (bigint, Date, -0) keep their types through superjson", () => {
  const position = { seq: 2n ** 70n, at: new Date("2026-11-24T05:00:00.000Z"), zero: -0 };
  const decoded = codec.decode<typeof position>("q1", codec.encode("q1", position));
  assert.equal(decoded.seq, 2n ** 70n);
  assert.ok(decoded.at instanceof Date);
  assert.equal(decoded.at.toISOString(), "2026-11-24T05:00:00.000Z");
  assert.ok(Object.is(decoded.zero, -0));
});

Deno.test("a cursor from another query, another secret, or edited is refused", () => {
  const cursor = codec.encode("q1", { k: 1, i: "a" });
  assert.match(refusal(() => codec.decode("q2", cursor)), /another query/);
  assert.match(refusal(() => new CursorCodec("other-secret").decode("q1", cursor)), /not issued here/);
  const [body, mac] = cursor.split(".");
  const edited = `${body!.slice(0, -2)}${body!.slice(-2) === "AA" ? "AB" : "AA"}.${mac}`;
  assert.match(refusal(() => codec.decode("q1", edited)), /not issued here|malformed/);
  assert.match(refusal(() => codec.decode("q1", `${cursor}.x`)), /malformed/);
  assert.match(refusal(() => codec.decode("q1", "!!!.???")), /malformed/);
});

Deno.test("the same position under the same query always gives the same cursor", () => {
  assert.equal(codec.encode("q1", { k: 3, i: "b" }), codec.encode("q1", { k: 3, i: "b" }));
  assert.notEqual(codec.encode("q1", { k: 3, i: "b" }), codec.encode("q1", { k: 3, i: "c" }));
});
