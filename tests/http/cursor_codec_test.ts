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

Deno.test("cursors are the same bytes as the ones issued before (golden values)", () => {
  const position = { s: "231b89b3.1", k: 4971848, i: "polymarket-102912" };
  assert.equal(
    codec.encode("f1dbc03ccfadedd0", position),
    "eyJqc29uIjp7InEiOiJmMWRiYzAzY2NmYWRlZGQwIiwicCI6eyJzIjoiMjMxYjg5YjMuMSIsImsiOjQ5NzE4NDgsImkiOiJwb2x5bWFya2V0LTEwMjkxMiJ9fX0.tiygYs6J2bj-VvevQKNY-w",
  );
  assert.equal(
    codec.encode("q1", { k: null, i: "é-ü" }),
    "eyJqc29uIjp7InEiOiJxMSIsInAiOnsiayI6bnVsbCwiaSI6IsOpLcO8In19fQ.b9MeA-PCwwDaH8FqPBUhhg",
  );
  assert.equal(
    codec.encode("q1", { seq: 2n ** 70n }),
    "eyJqc29uIjp7InEiOiJxMSIsInAiOnsic2VxIjoiMTE4MDU5MTYyMDcxNzQxMTMwMzQyNCJ9fSwibWV0YSI6eyJ2YWx1ZXMiOnsicC5zZXEiOlsiYmlnaW50Il19LCJ2IjoxfX0.0th-b_DTjNZMFxHHmPrRYA",
  );
  assert.equal(CursorCodec.fingerprint({ sortBy: "volume", min_price: 0.1, limit: 50 }), "f1dbc03ccfadedd0");
});

Deno.test("only a cursor's exact unpadded base64url is read: padding, whitespace or stray bits are malformed", () => {
  const cursor = codec.encode("q1", 7); // body of 34 characters: its last one carries 2 unused bits
  const [body, mac] = cursor.split(".") as [string, string];
  assert.deepEqual(codec.decode("q1", `${body}.${mac}`), 7);
  const strayBits = body.slice(0, -1) + String.fromCharCode(body.charCodeAt(body.length - 1) + 1);
  for (
    const garbled of [
      `${body}==.${mac}`,
      `${body.slice(0, 4)} ${body.slice(4)}.${mac}`,
      `${strayBits}.${mac}`,
    ]
  ) {
    assert.match(refusal(() => codec.decode("q1", garbled)), /malformed/, garbled);
  }
  assert.match(refusal(() => codec.decode("q1", `${body}.${mac}=`)), /malformed/);
});

Deno.test("of all 64 last characters of a cursor's body or MAC, only the one it was issued with is read", () => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  // Bodies of 36, 38, 39 and 40 characters: the last character carries 0, 4, 2 and 0 unused bits
  // (a whole group, a group of 2 and one of 3 characters); the 16-byte MAC's, 4.
  const cursors = ["7", "70", "700", "7000"].map((position) => codec.encode("q1", position));
  const remainders = new Set(cursors.map((cursor) => cursor.split(".")[0]!.length % 4));
  assert.deepEqual([...remainders].sort(), [0, 2, 3]);
  for (const cursor of cursors) {
    const [body, mac] = cursor.split(".") as [string, string];
    for (
      const [part, swap] of [[body, (c: string) => `${c}.${mac}`], [
        mac,
        (c: string) => `${body}.${c}`,
      ]] as const
    ) {
      const readable = [...alphabet].filter((last) => {
        try {
          codec.decode("q1", swap(part.slice(0, -1) + last));
          return true;
        } catch {
          return false;
        }
      });
      assert.deepEqual(readable, [part.at(-1)], cursor);
    }
  }
});
