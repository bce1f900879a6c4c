/// <reference lib="deno.worker" />
// A verification worker that says it is ready, then never answers (tests/validators/verify_pool_test.ts).
self.onmessage = () => {};
self.postMessage("ready");
