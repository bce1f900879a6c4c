import assert from "node:assert/strict";
import { decodeNeuronsLite, netuidCallArgument, payloadFromRpcResult } from "../../actors/validators/mod.ts";
import { encodeNeuronsLite, generateNeurons } from "../support/neuron_info_scale.ts";
import { startFakeSubtensor } from "../support/fake_subtensor.ts";

const NETUID = 41;

function call(url: string, method: string, params: unknown[], signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: "POST",
    ...(signal ? { signal } : {}),
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
  });
}

Deno.test("the fake Subtensor answers get_neurons_lite with the payload set for the subnet, over real JSON-RPC", async () => {
  const fixtures = generateNeurons(1024, { netuid: NETUID, validators: [1, 2, 3] });
  await using node = startFakeSubtensor({ payloads: { [NETUID]: encodeNeuronsLite(fixtures) } });
  const response = await call(node.url, "state_call", [
    "NeuronInfoRuntimeApi_get_neurons_lite",
    netuidCallArgument(NETUID),
  ]);
  const body = await response.json();
  assert.equal(body.jsonrpc, "2.0");
  assert.equal(body.id, 7);
  const neurons = decodeNeuronsLite(payloadFromRpcResult(body.result), { netuid: NETUID });
  assert.equal(neurons.length, 1024);
  assert.deepEqual(neurons.filter((n) => n.validatorPermit).map((n) => n.uid), [1, 2, 3]);

  const legacy = await (await call(node.url, "neuronInfo_getNeuronsLite", [NETUID])).json();
  assert.deepEqual(decodeNeuronsLite(payloadFromRpcResult(legacy.result), { netuid: NETUID }), neurons);
  const other =
    await (await call(node.url, "state_call", ["NeuronInfoRuntimeApi_get_neurons_lite", "0x2a00"])).json();
  assert.deepEqual(decodeNeuronsLite(payloadFromRpcResult(other.result), { netuid: 42 }), []);
  const header = await (await call(node.url, "chain_getHeader", [])).json();
  assert.equal(parseInt(header.result.number, 16), 6_852_690);
  assert.deepEqual(node.calls.map((c) => c.method), [
    "state_call",
    "neuronInfo_getNeuronsLite",
    "state_call",
    "chain_getHeader",
  ]);
});

Deno.test("the fake Subtensor serves the wrapped form and each queued failure once", async () => {
  const fixtures = generateNeurons(4, { netuid: NETUID, validators: [0] });
  await using node = startFakeSubtensor();
  node.setPayload(NETUID, encodeNeuronsLite(fixtures, { wrapped: true }));
  const neuronsLite = () => call(node.url, "state_call", ["NeuronInfoRuntimeApi_get_neurons_lite", "0x2900"]);

  node.failNext(1, { kind: "rpc_error", code: 4003, message: "Client error: Execution failed" });
  node.failNext(1, { kind: "status", status: 503, retryAfter: "1" });
  node.failNext(1, { kind: "body", body: "<html>bad gateway</html>" });
  node.failNext(1, { kind: "result", result: "0xzz" });
  assert.deepEqual((await (await neuronsLite()).json()).error, {
    code: 4003,
    message: "Client error: Execution failed",
  });
  const unavailable = await neuronsLite();
  assert.deepEqual([unavailable.status, unavailable.headers.get("retry-after")], [503, "1"]);
  await unavailable.body?.cancel();
  await assert.rejects((await neuronsLite()).json(), SyntaxError);
  const badHex = (await (await neuronsLite()).json()).result;
  assert.throws(() => payloadFromRpcResult(badHex), TypeError);

  const body = await (await neuronsLite()).json();
  assert.equal(decodeNeuronsLite(payloadFromRpcResult(body.result), { netuid: NETUID }).length, 4);
  assert.equal((await (await call(node.url, "system_unknown", [])).json()).error.code, -32601);
});

Deno.test("a hanging answer can be aborted by the caller, and is released when the fake closes", async () => {
  const node = startFakeSubtensor();
  node.failNext(2, { kind: "hang", ms: 60_000 });
  const controller = new AbortController();
  const aborted = call(node.url, "chain_getHeader", [], controller.signal);
  const pending = call(node.url, "chain_getHeader", []);
  while (node.calls.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
  controller.abort();
  await assert.rejects(aborted, { name: "AbortError" });
  await node.close();
  const released = await (await pending).json();
  assert.equal(parseInt(released.result.number, 16), 6_852_690);
});
