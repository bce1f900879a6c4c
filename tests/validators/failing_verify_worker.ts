/// <reference lib="deno.worker" />
// A verification worker that cannot start (tests/validators/verify_pool_test.ts). Deno prints its
// uncaught error on stderr even though the pool handles it: the lines it prints in a test run are
// expected.
throw new Error("expected (a test's worker that cannot start)");
