/// <reference lib="deno.worker" />
// A verification worker that cannot start (tests/validators/verify_pool_test.ts).
throw new Error("this worker cannot start");
