import assert from "node:assert/strict";
import { hex } from "@scure/base";
import * as scure from "@scure/sr25519";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import {
  loadSr25519Verify,
  loadWasmSr25519Verify,
  scureSr25519Verify,
  type SignatureRole,
  signerFromSecretHex,
  signMessage,
  signRequest,
  verifySignedRequest,
  wrapBytes,
} from "../../actors/validators/mod.ts";
import { runSign } from "../../scripts/sign/sign.ts";
import { signatureVectors } from "../support/signature_vectors.ts";

const verify = await loadSr25519Verify();
const vectors = await signatureVectors();
const NOW = 1_763_712_000_000;
const MINER = "5Fpfx4iDtrrY99VGkQnLXASytC2y9Z3o8KUyTtD4w7o5SZcA";

Deno.test("a seed and its 64-byte secret key give the same signer", () => {
  const fromSeed = signerFromSecretHex("0x" + "11".repeat(32));
  const fromSecret = signerFromSecretHex(hex.encode(scure.secretFromSeed(hex.decode("11".repeat(32)))));
  assert.equal(fromSeed.hotkey, "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi");
  assert.equal(fromSecret.hotkey, fromSeed.hotkey);
  assert.deepEqual(fromSecret.secretKey, fromSeed.secretKey);
});

Deno.test("a malformed signing secret is refused without echoing it", () => {
  for (const bad of ["", "11".repeat(31), "11".repeat(33), "zz".repeat(32)]) {
    assert.throws(
      () => signerFromSecretHex(bad),
      (e) => e instanceof TypeError && !e.message.includes(bad || "§"),
    );
  }
});

Deno.test("the client's headers verify with the service's verifier, for validators and miners", () => {
  const signer = signerFromSecretHex("22".repeat(32));
  const requests: [SignatureRole, { method: string; url: string; body?: string; minerHotkey?: string }][] = [
    ["validator", { method: "GET", url: "https://gw.example/v1/validators/agent-and-event" }],
    ["validator", { method: "POST", url: "/v1/validators/prediction", body: '{"x":"é"}' }],
    ["validator", {
      method: "GET",
      url: "https://gw.example/v1/validators/scored-predictions?days=7&limit=20",
    }],
    ["validator", {
      method: "POST",
      url: "/v1/gateway/validator/completions",
      body: "{}",
      minerHotkey: MINER,
    }],
    ["miner", { method: "POST", url: "/v1/agents/submit-agent", body: '{"code":"def agent_main(e): pass"}' }],
  ];
  for (const [role, request] of requests) {
    const headers = signRequest(signer, request, { role, nowMs: NOW });
    const target = request.url.replace("https://gw.example", "");
    const parts = { method: request.method, target, body: request.body ?? "", headers: new Headers(headers) };
    const verified = verifySignedRequest(parts, { role, nowMs: NOW + 5_000, windowMs: 30_000, verify });
    assert.equal(verified.hotkey, signer.hotkey);
    assert.equal(verified.wrapped, false);
    assert.equal(verified.minerHotkey, role === "miner" ? signer.hotkey : request.minerHotkey ?? null);
  }
  const first = signRequest(signer, requests[0]![1], { role: "validator", nowMs: NOW });
  const second = signRequest(signer, requests[0]![1], { role: "validator", nowMs: NOW });
  assert.notEqual(first["x-validator-nonce"], second["x-validator-nonce"]);
});

Deno.test("the client signs exactly the golden canonical message of every valid vector", () => {
  for (const vector of vectors.filter((v) => v.valid)) {
    const role: SignatureRole = vector.canonicalMessage.startsWith("forecasting-gateway/miner/")
      ? "miner"
      : "validator";
    const { method, target, body, nonce, timestampMs, minerHotkey } = vector.request;
    const signer = signerFromSecretHex(vector.signerSeedHex);
    const headers = signRequest(signer, {
      method,
      url: target,
      body,
      ...(minerHotkey ? { minerHotkey } : {}),
    }, {
      role,
      nowMs: Number(timestampMs),
      nonce,
    });
    const signature = hex.decode(headers[`x-${role}-signature`]!.slice(2));
    const message = utf8ToBytes(vector.canonicalMessage);
    assert.equal(verify(signature, message, signer.publicKey), true, vector.name);
    assert.equal(verify(signature, wrapBytes(message), signer.publicKey), false, vector.name);
    assert.equal(headers[`x-${role}-hotkey`], vector.signerSs58);
    assert.equal(headers[`x-${role}-timestamp`], timestampMs);
  }
});

Deno.test("the client's signatures (WebAssembly build, loaded) verify with both sr25519 verifiers", async () => {
  const wasmVerify = await loadWasmSr25519Verify();
  for (const seed of ["33", "44", "55"]) {
    const signer = signerFromSecretHex(seed.repeat(32));
    const message = utf8ToBytes(`message signed by ${seed}`);
    const signature = signMessage(signer, message);
    assert.equal(scureSr25519Verify(signature, message, signer.publicKey), true);
    assert.equal(wasmVerify(signature, message, signer.publicKey), true);
    assert.equal(wasmVerify(signature, utf8ToBytes("another message"), signer.publicKey), false);
    assert.notDeepEqual(signMessage(signer, message), signature, "signatures are randomised");
  }
});

Deno.test("the client refuses a nonce the service would refuse, and a miner signing for another miner", () => {
  const signer = signerFromSecretHex("11".repeat(32));
  const request = { method: "GET", url: "/v1/validators/agent-and-event" };
  assert.throws(
    () => signRequest(signer, request, { role: "validator", nowMs: NOW, nonce: "too short" }),
    TypeError,
  );
  assert.throws(
    () => signRequest(signer, { ...request, minerHotkey: MINER }, { role: "miner", nowMs: NOW }),
    TypeError,
  );
});

async function sign(argv: string[], env: Record<string, string> = { FGW_SIGNING_SECRET: "11".repeat(32) }) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runSign(argv, {
    env,
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    nowMs: () => NOW,
    readFile: (path) => Promise.resolve(utf8ToBytes(`contents of ${path}`)),
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

Deno.test("deno task sign prints headers that verify, and never the secret", async () => {
  const run = await sign([
    "POST",
    "https://gw.example/v1/validators/prediction?a=1",
    "--body",
    "{}",
    "--json",
  ]);
  assert.equal(run.code, 0, run.err);
  assert.ok(!run.out.includes("11".repeat(32)));
  const headers = new Headers(JSON.parse(run.out));
  const parts = { method: "POST", target: "/v1/validators/prediction?a=1", body: "{}", headers };
  const verified = verifySignedRequest(parts, { role: "validator", nowMs: NOW, windowMs: 30_000, verify });
  assert.equal(verified.hotkey, "5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi");

  const miner = await sign([
    "post",
    "/v1/agents/submit-agent",
    "--miner",
    "--body-file",
    "agent.py",
    "--nonce",
    "fixed-nonce-000001",
  ]);
  assert.equal(miner.code, 0, miner.err);
  const lines = new Headers(miner.out.split("\n").map((line) => line.split(": ") as [string, string]));
  assert.equal(lines.get("x-miner-nonce"), "fixed-nonce-000001");
  const minerParts = {
    method: "POST",
    target: "/v1/agents/submit-agent",
    body: "contents of agent.py",
    headers: lines,
  };
  assert.equal(
    verifySignedRequest(minerParts, { role: "miner", nowMs: NOW, windowMs: 1, verify }).hotkey,
    verified.hotkey,
  );
});

Deno.test("deno task sign refuses a missing secret or request with a usage error", async () => {
  const noSecret = await sign(["GET", "/v1/validators/agent-and-event"], {});
  assert.equal(noSecret.code, 2);
  assert.match(noSecret.err, /FGW_SIGNING_SECRET is not set/);
  assert.equal((await sign(["GET"])).code, 2);
  assert.equal((await sign(["GET", "/x", "--body", "a", "--body-file", "b"])).code, 2);
  const badSecret = await sign(["GET", "/x"], { FGW_SIGNING_SECRET: "secret-value-zz" });
  assert.equal(badSecret.code, 2);
  assert.ok(!badSecret.err.includes("secret-value-zz"));
});

Deno.test("deno task sign --message prints a signature of exactly the message, and never the secret", async () => {
  const message =
    "forecasting-gateway/signin/v1\nhttp://localhost:8000\nchallenge\n5DtDLm5rQHShDqojQpsvcN8tRXHVFaecfDoRet1SU6BFD9Fi";
  const run = await sign(["--message", message]);
  assert.equal(run.code, 0, run.err);
  assert.match(run.out, /^0x[0-9a-f]{128}$/);
  const signer = signerFromSecretHex("11".repeat(32));
  assert.ok(verify(hex.decode(run.out.slice(2)), utf8ToBytes(message), signer.publicKey));
  assert.ok(!verify(hex.decode(run.out.slice(2)), utf8ToBytes(`${message}\n`), signer.publicKey));
  const json = await sign(["--message", message, "--json"]);
  const parsed = JSON.parse(json.out);
  assert.equal(parsed.hotkey, signer.hotkey);
  assert.ok(verify(hex.decode(parsed.signature.slice(2)), utf8ToBytes(message), signer.publicKey));
  assert.ok(!run.out.includes("11".repeat(32)) && !json.out.includes("11".repeat(32)));
});

Deno.test("deno task sign --message takes no request", async () => {
  for (
    const argv of [["--message", "m", "GET", "/x"], ["--message", "m", "--miner"], [
      "--message",
      "m",
      "--curl",
    ]]
  ) {
    const run = await sign(argv);
    assert.equal(run.code, 2, argv.join(" "));
    assert.match(run.err, /--message takes no METHOD, URL or request option/);
  }
});
