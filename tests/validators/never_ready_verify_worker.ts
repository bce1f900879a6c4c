/// <reference lib="deno.worker" />
// A verification worker that never says it is ready (tests/validators/verify_pool_test.ts).
await new Promise(() => {});
