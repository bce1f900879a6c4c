import assert from "node:assert/strict";
import { isTimeZone, localDays } from "../../actors/usage/mod.ts";
import { QUARTER_MS } from "../../storage/usage_store.ts";

/** The days' starts as ISO instants. */
function starts(from: string, to: string, timeZone: string): string[] {
  return localDays({ from, to }, timeZone).starts.map((quarter) =>
    new Date(quarter * QUARTER_MS).toISOString()
  );
}

Deno.test("a local day starts at its zone's midnight, to the quarter-hour, in zones of :30 and :45", () => {
  assert.deepEqual(starts("2026-03-01", "2026-03-01", "Asia/Kolkata"), [
    "2026-02-28T18:30:00.000Z",
    "2026-03-01T18:30:00.000Z",
  ]);
  assert.deepEqual(starts("2026-03-01", "2026-03-01", "Asia/Kathmandu"), [
    "2026-02-28T18:15:00.000Z",
    "2026-03-01T18:15:00.000Z",
  ]);
  assert.deepEqual(starts("2026-01-01", "2026-01-01", "Pacific/Chatham"), [
    "2025-12-31T10:15:00.000Z",
    "2026-01-01T10:15:00.000Z",
  ]);
  assert.deepEqual(starts("2026-06-01", "2026-06-01", "America/St_Johns"), [
    "2026-06-01T02:30:00.000Z",
    "2026-06-02T02:30:00.000Z",
  ]);
});

Deno.test("a local day is 23 or 25 hours across a clock change, and a skipped midnight starts it at the change", () => {
  assert.deepEqual(starts("2026-03-29", "2026-03-29", "Europe/London"), [
    "2026-03-29T00:00:00.000Z",
    "2026-03-29T23:00:00.000Z",
  ]);
  assert.deepEqual(starts("2026-10-25", "2026-10-25", "Europe/London"), [
    "2026-10-24T23:00:00.000Z",
    "2026-10-26T00:00:00.000Z",
  ]);
  // Lord Howe moves its clocks by 30 minutes.
  assert.deepEqual(starts("2026-10-04", "2026-10-04", "Australia/Lord_Howe"), [
    "2026-10-03T13:30:00.000Z",
    "2026-10-04T13:00:00.000Z",
  ]);
  // São Paulo skipped 2018-11-04 00:00–01:00: the day began at 01:00 local.
  assert.deepEqual(starts("2018-11-04", "2018-11-04", "America/Sao_Paulo"), [
    "2018-11-04T03:00:00.000Z",
    "2018-11-05T02:00:00.000Z",
  ]);
  // Havana repeated 2022-11-06 00:00–01:00: the day began at the first midnight.
  assert.deepEqual(starts("2022-11-06", "2022-11-06", "America/Havana"), [
    "2022-11-06T04:00:00.000Z",
    "2022-11-07T05:00:00.000Z",
  ]);
});

Deno.test("a date a zone skipped is a day without quarter-hours", () => {
  const days = localDays({ from: "2011-12-29", to: "2011-12-31" }, "Pacific/Apia");
  assert.deepEqual(days.days, ["2011-12-29", "2011-12-30", "2011-12-31"]);
  assert.equal(days.starts[1], days.starts[2]);
  assert.equal(days.starts[2]! - days.starts[0]!, 96);
});

Deno.test("a year of days, in order, each named by its date", () => {
  const days = localDays({ from: "2024-01-01", to: "2024-12-31" }, "Asia/Kathmandu");
  assert.equal(days.days.length, 366);
  assert.equal(days.days[59], "2024-02-29");
  assert.equal(days.starts.length, 367);
  assert.ok(days.starts.every((start, i) => i === 0 || start - days.starts[i - 1]! === 96));
});

Deno.test("only IANA zone names are time zones", () => {
  for (
    const name of ["UTC", "Asia/Kolkata", "Asia/Kathmandu", "America/Argentina/Buenos_Aires", "Etc/GMT+5"]
  ) {
    assert.equal(isTimeZone(name), true, name);
  }
  for (
    const name of [
      "",
      "Mars/Olympus_Mons",
      "+05:30",
      "05:30",
      "Asia/Kolkata ",
      "asia/../kolkata",
      "x".repeat(80),
    ]
  ) {
    assert.equal(isTimeZone(name), false, name);
  }
  assert.throws(() => localDays({ from: "2026-01-01", to: "2026-01-01" }, "+05:30"), RangeError);
  assert.throws(() => localDays({ from: "2026-02-30", to: "2026-03-01" }, "UTC"), RangeError);
});
