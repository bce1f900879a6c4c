import assert from "node:assert/strict";
import {
  MetagraphSourceError,
  SubtensorMetagraphSource,
  type SubtensorMetagraphSourceOptions,
} from "../../actors/validators/mod.ts";
import { type FakeSubtensor, startFakeSubtensor } from "../support/fake_subtensor.ts";
import { encodeNeuronsLite, generateNeurons } from "../support/neuron_info_scale.ts";
import { neuronOfFixture } from "../support/neurons.ts";

const NETUID = 41;
const VALIDATORS = [0, 5, 17, 255, 700, 1023];
const fixtures = generateNeurons(1024, { netuid: NETUID, validators: VALIDATORS });
const payload = encodeNeuronsLite(fixtures);

/** The adapter on `node`, with no retries unless asked and waits that are only recorded. */
function sourceFor(
  node: Pick<FakeSubtensor, "url">,
  options: Partial<SubtensorMetagraphSourceOptions> & { waits?: number[] } = {},
): SubtensorMetagraphSource {
  const { waits = [], ...rest } = options;
  return new SubtensorMetagraphSource({
    url: node.url,
    netuid: NETUID,
    retries: 0,
    random: () => 0.5,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    ...rest,
  });
}

function withTrailingByte(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  return out;
}

/** Asserts that a fetch fails whole with a MetagraphSourceError whose message matches `pattern`. */
async function failsWith(source: SubtensorMetagraphSource, pattern: RegExp): Promise<void> {
  await assert.rejects(
    () => source.fetch(new AbortController().signal),
    (error) => error instanceof MetagraphSourceError && pattern.test(error.message),
  );
}

Deno.test("a 1024-neuron metagraph with several validators is read whole at the header's block", async () => {
  await using node = startFakeSubtensor({ payloads: { [NETUID]: payload }, block: 7_000_123 });
  const snapshot = await sourceFor(node).fetch(new AbortController().signal);
  assert.equal(snapshot.netuid, NETUID);
  assert.equal(snapshot.block, 7_000_123);
  assert.deepEqual(snapshot.neurons, fixtures.map(neuronOfFixture));
  assert.deepEqual(snapshot.neurons.filter((n) => n.validatorPermit).map((n) => n.uid), VALIDATORS);
  assert.deepEqual(node.calls.map((call) => call.method), [
    "chain_getHeader",
    "chain_getBlockHash",
    "state_call",
  ]);
  const hash = node.calls[2]!.params[2];
  assert.deepEqual(node.calls[1]!.params, [7_000_123]);
  assert.deepEqual(node.calls[2]!.params, ["NeuronInfoRuntimeApi_get_neurons_lite", "0x2900", hash]);
  assert.match(String(hash), /^0x[0-9a-f]{64}$/, "the state is read at the header's block hash");
});

Deno.test("the Vec<u8>-wrapped answer of older runtimes gives the same metagraph", async () => {
  await using node = startFakeSubtensor({
    payloads: { [NETUID]: encodeNeuronsLite(fixtures, { wrapped: true }) },
  });
  const snapshot = await sourceFor(node).fetch(new AbortController().signal);
  assert.deepEqual(snapshot.neurons, fixtures.map(neuronOfFixture));
});

Deno.test("a truncated payload fails the whole fetch", async () => {
  await using node = startFakeSubtensor({ payloads: { [NETUID]: payload.slice(0, payload.length - 1) } });
  await failsWith(
    sourceFor(node),
    /Cannot decode NeuronInfoRuntimeApi_get_neurons_lite at block 6852690: Cannot decode NeuronInfoLite payload/,
  );
});

Deno.test("trailing bytes after the last neuron fail the whole fetch", async () => {
  await using node = startFakeSubtensor({ payloads: { [NETUID]: withTrailingByte(payload) } });
  await failsWith(sourceFor(node), /trailing bytes/);
});

Deno.test("a JSON-RPC error object fails the fetch and names the node's error", async () => {
  await using node = startFakeSubtensor({ payloads: { [NETUID]: payload } });
  const error = { kind: "rpc_error", code: 4003, message: "Client error: Execution failed" } as const;
  node.failNext(1, error, { method: "state_call" });
  await failsWith(sourceFor(node), /state_call: JSON-RPC error 4003: Client error: Execution failed/);
  node.failNext(1, { kind: "rpc_error", code: -32000, message: "busy" }, { method: "chain_getHeader" });
  await failsWith(sourceFor(node), /chain_getHeader: JSON-RPC error -32000: busy/);
});

Deno.test("an HTTP 5xx is retried after its Retry-After, and fails the fetch once retries are spent", async () => {
  await using node = startFakeSubtensor({ payloads: { [NETUID]: payload } });
  node.failNext(1, { kind: "status", status: 503, retryAfter: "2" }, { method: "state_call" });
  const waits: number[] = [];
  const snapshot = await sourceFor(node, { retries: 2, waits }).fetch(new AbortController().signal);
  assert.equal(snapshot.neurons.length, 1024);
  assert.deepEqual(waits, [2_000]);
  node.failNext(3, { kind: "status", status: 502 }, { method: "state_call" });
  await failsWith(
    sourceFor(node, { retries: 2 }),
    /Cannot call Subtensor state_call: HTTP 502 \(3 attempts\)/,
  );
});

Deno.test("a node that does not answer in time fails the fetch", async () => {
  await using node = startFakeSubtensor({ payloads: { [NETUID]: payload } });
  node.failNext(1, { kind: "hang", ms: 60_000 }, { method: "state_call" });
  await failsWith(
    // The block header and hash, asked first, must be answered within it: seconds, for a busy machine.
    sourceFor(node, { timeoutMs: 2_000 }),
    /Cannot call Subtensor state_call: no answer within 2000 ms \(1 attempt\)/,
  );
});

Deno.test("garbage instead of a JSON-RPC answer fails the fetch", async () => {
  await using node = startFakeSubtensor({ payloads: { [NETUID]: payload } });
  node.failNext(1, { kind: "body", body: "<html>502 Bad Gateway</html>" }, { method: "state_call" });
  await failsWith(sourceFor(node), /state_call: the answer is not JSON/);
  node.failNext(1, { kind: "body", body: '{"jsonrpc":"2.0","id":999,"result":"0x00"}' }, {
    method: "state_call",
  });
  await failsWith(sourceFor(node), /state_call: the answer is not for this call/);
  node.failNext(1, { kind: "result", result: "0xnothex" }, { method: "state_call" });
  await failsWith(sourceFor(node), /expected 0x-prefixed hex/);
  node.failNext(1, { kind: "result", result: { number: 12 } }, { method: "chain_getHeader" });
  await failsWith(sourceFor(node), /chain_getHeader: no block number/);
});

Deno.test("a payload holding a neuron of another subnet fails the fetch", async () => {
  const foreign = generateNeurons(3, { netuid: 42, validators: [] });
  await using node = startFakeSubtensor({ payloads: { [NETUID]: encodeNeuronsLite(foreign) } });
  await failsWith(sourceFor(node), /belongs to netuid 42, not 41/);
});

Deno.test("the caller's abort stops the fetch with the abort reason, not a source error", async () => {
  await using node = startFakeSubtensor({ payloads: { [NETUID]: payload } });
  node.failNext(1, { kind: "hang", ms: 60_000 }, { method: "state_call" });
  const abort = new AbortController();
  const fetching = sourceFor(node).fetch(abort.signal);
  const reason = new Error("Scheduler stopped");
  setTimeout(() => abort.abort(reason), 20);
  await assert.rejects(() => fetching, (error) => error === reason);
});

Deno.test("an unreachable node fails the fetch as a source error", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${listener.addr.port}`;
  listener.close();
  await failsWith(sourceFor({ url }, { retries: 1 }), /Cannot call Subtensor chain_getHeader: network error/);
});
