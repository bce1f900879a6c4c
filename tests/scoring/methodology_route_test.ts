import assert from "node:assert/strict";
import { MethodologySchema } from "../../routes/scoring/methodology_api.ts";
import { openTestService } from "../support/test_service.ts";

Deno.test("GET /v1/scoring/methodology answers the documented shape: version, constants, settings and the example", async () => {
  await using service = await openTestService({});
  const response = await service.request("/v1/scoring/methodology");
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
  const body = await response.json();
  const parsed = MethodologySchema.strict().parse(body);
  assert.equal(parsed.scorerVersion, "1.0.0");
  assert.deepEqual(parsed.settings, {
    windowDays: 30,
    scoringIntervalMs: 300_000,
    forecastingWeightShare: 1,
  });
  assert.equal(parsed.example.input.predictions.length, 16);
  assert.deepEqual(Object.keys(parsed.example.output.miners), [
    "example-miner-a",
    "example-miner-b",
    "example-miner-c",
  ]);
  assert.deepEqual(
    Object.values(parsed.example.output.miners).map((miner) => miner.scoring.gate),
    ["pass", "pass", "invalid_rate"],
  );
  const again = await (await service.request("/v1/scoring/methodology")).json();
  assert.deepEqual(again, body);
});

Deno.test("GET /v1/scoring/methodology refuses query parameters with 400 naming them", async () => {
  await using service = await openTestService({});
  const response = await service.request("/v1/scoring/methodology?window=7");
  assert.equal(response.status, 400);
  const body = await response.json();
  assert.equal(body.error.code, "invalid_request");
  assert.equal(body.error.details.fields[0].field, "window");
});
