import assert from "node:assert/strict";
import { callerPath } from "../../../scripts/cli/caller_path.ts";

Deno.test("a path the user typed is read from the folder the command was run from", () => {
  assert.equal(callerPath("upload.json", { INIT_CWD: "/home/v/work" }), "/home/v/work/upload.json");
  assert.equal(callerPath("../a/b.json", { INIT_CWD: "/home/v/work" }), "/home/v/a/b.json");
  assert.equal(callerPath("/tmp/x.json", { INIT_CWD: "/home/v/work" }), "/tmp/x.json");
  assert.equal(callerPath("upload.json", {}), "upload.json", "outside deno task: the process's own folder");
  assert.equal(callerPath("upload.json", { INIT_CWD: "" }), "upload.json");
});
