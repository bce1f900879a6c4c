import assert from "node:assert/strict";
import { listTestFiles, PARTS, planParts } from "./plan.ts";

const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("every test file is imported by exactly one part of the suite, and the test task runs every part", async () => {
  const files = await listTestFiles(`${root}/tests`);
  assert.ok(files.includes("suite/plan_test.ts"), "the walk finds this very file");
  assert.deepEqual(planParts(files).flat().toSorted(), files, "each file in one part");
  const task: string = JSON.parse(await Deno.readTextFile(`${root}/deno.json`)).tasks.test;
  for (let index = 0; index < PARTS; index++) {
    const part = `tests/suite/part_${index + 1}.ts`;
    assert.ok(task.includes(part), `deno task test runs ${part}`);
    assert.match(await Deno.readTextFile(`${root}/${part}`), new RegExp(`await importPart\\(${index}\\);`));
  }
});

Deno.test("the parts are balanced: the slowest files go to different parts", () => {
  const files = ["validators/lease_race_test.ts", "scripts/service/start_test.ts", "a_test.ts", "b_test.ts"];
  const parts = planParts(files);
  assert.equal(parts.length, PARTS);
  const partOf = (file: string) => parts.findIndex((part) => part.includes(file));
  assert.notEqual(partOf("validators/lease_race_test.ts"), partOf("scripts/service/start_test.ts"));
  assert.deepEqual(parts.flat().toSorted(), files.toSorted());
});

Deno.test("adding a test file changes one part by one line", async () => {
  const files = await listTestFiles(`${root}/tests`);
  const before = planParts(files);
  const after = planParts([...files, "zz/new_test.ts"].toSorted());
  const changed = after.map((part, index) => part.filter((file) => !before[index]!.includes(file)));
  assert.deepEqual(changed.flat(), ["zz/new_test.ts"]);
  assert.deepEqual(after.map((part) => part.filter((file) => file !== "zz/new_test.ts")), before);
});
