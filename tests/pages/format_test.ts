import assert from "node:assert/strict";
import { every } from "../../routes/pages/kit/format.ts";

Deno.test("every says a period in its largest whole unit, in words for one of it", () => {
  const said = [0, 250, 1_000, 1_500, 5_000, 60_000, 90_000, 300_000, 3_600_000, 7_200_000].map(every);
  assert.deepEqual(said, [
    "on every request",
    "every 250 milliseconds",
    "every second",
    "every 1.5 seconds",
    "every 5 seconds",
    "every minute",
    "every 90 seconds",
    "every 5 minutes",
    "every hour",
    "every 2 hours",
  ]);
});
