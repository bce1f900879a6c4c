import assert from "node:assert/strict";
import { prepareCgroups } from "../../../../scripts/validate/sandbox/run_cgroup.ts";

Deno.test("preparing the runs' folders removes a stopped validator's runs and keeps a live one's", async () => {
  const base = await Deno.makeTempDir();
  const gone = `${base}/run-2147483646-abcd1234-0`; // no such process
  const live = `${base}/run-${Deno.pid}-abcd1234-0`; // made, not joined yet
  await Deno.mkdir(gone);
  await Deno.mkdir(live);
  try {
    await prepareCgroups({ version: 1, memory: base, pids: base, cpu: null, top: null });
    assert.equal(await Deno.stat(gone).then(() => true, () => false), false);
    assert.equal(await Deno.stat(live).then(() => true, () => false), true);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
