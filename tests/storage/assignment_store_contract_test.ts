import assert from "node:assert/strict";
import { StoreRefusal } from "../../storage/store_refusal.ts";
import type { Claimed } from "../../storage/assignment_store.ts";
import { adapterTest } from "../support/adapters.ts";
import {
  claimAll,
  idOf,
  LONG_LEASE,
  minerHotkey,
  seedQueue,
  submission,
  targetFor,
  versionOf,
  waitMs,
} from "../support/assignments.ts";
import { putEvents, resolved } from "../support/events.ts";

const SHORT_LEASE = { leaseMs: 20, maxLive: 100 };

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error) => error instanceof StoreRefusal && error.code === code);
}

function summary(claimed: Claimed): string {
  return `${claimed.assignment.minerHotkey}/${claimed.assignment.eventId}`;
}

adapterTest(
  "ensure creates each assignment once, under an id derived from its identity",
  async ({ storage }) => {
    const { targets } = await seedQueue(storage, { miners: 2, events: 3 });
    const again = await storage.assignments.ensure(targets, { batchSize: 4 });
    assert.deepEqual(again, { created: 0, revived: 0, superseded: 0, stale: 0 });
    const first = targets[0]!;
    assert.match(idOf(first), /^ap_[0-9a-f]{32}$/);
    assert.deepEqual(await storage.assignments.get(idOf(first)), {
      agentPredictionId: idOf(first),
      agentVersionId: first.agentVersionId,
      eventId: first.eventId,
      round: 0,
      minerHotkey: first.minerHotkey,
      minerUid: first.minerUid,
      eventEndsAtMs: first.eventEndsAtMs,
      status: "available",
      lease: null,
      leaseCount: 0,
    });
    assert.equal(await storage.assignments.get("ap_unknown"), null);
    assert.equal(await storage.assignments.latestRound(first.eventId), 0);
    assert.equal(await storage.assignments.latestRound("polymarket-none"), null);
  },
);

adapterTest(
  "claims go round-robin across miners, soonest-ending event first, with the event as stored",
  async ({ storage }) => {
    const { events } = await seedQueue(storage, { miners: 2, events: 2 });
    const claimed = await claimAll(storage.assignments, "5Validator");
    assert.deepEqual(claimed.map(summary), [
      `${minerHotkey(0)}/${events[0]!.id}`,
      `${minerHotkey(1)}/${events[0]!.id}`,
      `${minerHotkey(0)}/${events[1]!.id}`,
      `${minerHotkey(1)}/${events[1]!.id}`,
    ]);
    const first = claimed[0]!;
    assert.deepEqual(first.event, events[0]);
    const lease = first.assignment.lease;
    assert.equal(first.assignment.status, "in_progress");
    assert.equal(first.assignment.leaseCount, 1);
    assert.equal(lease.validatorHotkey, "5Validator");
    assert.equal(lease.expiresAtMs - lease.leasedAtMs, LONG_LEASE.leaseMs);
    assert.deepEqual(lease.outcomePrices, events[0]!.currentOutcomePrices);
    assert.deepEqual(await storage.assignments.get(first.assignment.agentPredictionId), first.assignment);
    assert.deepEqual(await storage.assignments.claim("5Validator", LONG_LEASE), { kind: "none" });
  },
);

adapterTest(
  "while several miners have work left, their lease counts never differ by more than one",
  async ({ storage }) => {
    const { events } = await seedQueue(storage, { miners: 0, events: 9 });
    const work = [2, 5, 9, 1];
    await storage.assignments.ensure(work.flatMap((n, m) => events.slice(0, n).map((e) => targetFor(m, e))));
    const leased = work.map(() => 0);
    for (let step = 0; step < 17; step++) {
      const result = await storage.assignments.claim("5Validator", LONG_LEASE);
      assert.equal(result.kind, "claimed");
      const miner = (result as Claimed).assignment.minerUid;
      leased[miner]!++;
      const busy = leased.filter((count, m) => count < work[m]! || m === miner);
      assert.ok(Math.max(...busy) - Math.min(...busy) <= 1, `step ${step}: leases ${leased.join(",")}`);
    }
    assert.deepEqual(leased, work);
  },
);

adapterTest("a miner that gains work joins the rotation instead of catching up", async ({ storage }) => {
  const { events } = await seedQueue(storage, { miners: 2, events: 6 });
  assert.equal((await claimAll(storage.assignments, "5Validator", 6)).length, 6);
  await storage.assignments.ensure(events.map((event) => targetFor(2, event)));
  const next = await claimAll(storage.assignments, "5Validator", 3);
  assert.deepEqual(next.map((claimed) => claimed.assignment.minerUid).toSorted(), [0, 1, 2]);
});

adapterTest("ensure refreshes a changed event end and miner uid", async ({ storage }) => {
  const { targets } = await seedQueue(storage, { miners: 1, events: 2 });
  const moved = { ...targets[1]!, eventEndsAtMs: targets[0]!.eventEndsAtMs - 60_000, minerUid: 42 };
  assert.deepEqual(await storage.assignments.ensure([moved]), {
    created: 0,
    revived: 0,
    superseded: 0,
    stale: 0,
  });
  const stored = await storage.assignments.get(idOf(moved));
  assert.equal(stored?.eventEndsAtMs, moved.eventEndsAtMs);
  assert.equal(stored?.minerUid, 42);
  const [first] = await claimAll(storage.assignments, "5Validator", 1);
  assert.equal(first!.assignment.agentPredictionId, idOf(moved), "it now ends first");
});

adapterTest("fresh-run rounds are claimed before ordinary work", async ({ storage }) => {
  const { events } = await seedQueue(storage, { miners: 3, events: 3 });
  const fresh = targetFor(2, events[2]!, { round: 1 });
  assert.equal((await storage.assignments.ensure([fresh])).created, 1);
  assert.equal(await storage.assignments.latestRound(events[2]!.id), 1);
  const [first, second] = await claimAll(storage.assignments, "5Validator", 2);
  assert.equal(first!.assignment.agentPredictionId, idOf(fresh));
  assert.equal(first!.assignment.round, 1);
  assert.equal(second!.assignment.round, 0);
  assert.equal(second!.assignment.minerHotkey, minerHotkey(0), "miner 2 just had its turn");
});

adapterTest(
  "a new agent version supersedes the old version's unleased assignments; older versions are ignored",
  async ({ storage }) => {
    const { events } = await seedQueue(storage, { miners: 1, events: 3 });
    const [leased] = await claimAll(storage.assignments, "5Validator", 1);
    const v2 = events.map((event) => targetFor(0, event, { version: 2 }));
    assert.deepEqual(await storage.assignments.ensure(v2), {
      created: 3,
      revived: 0,
      superseded: 2,
      stale: 0,
    });
    const v1 = events.map((event) => targetFor(0, event));
    assert.deepEqual(await storage.assignments.ensure(v1), {
      created: 0,
      revived: 0,
      superseded: 0,
      stale: 3,
    });
    assert.equal((await storage.assignments.get(idOf(v1[1]!)))?.status, "retired");
    const claimed = await claimAll(storage.assignments, "5Validator");
    assert.deepEqual(claimed.map((c) => c.assignment.agentVersionId), Array(3).fill(versionOf(0, 2)));
    const receipt = await storage.assignments.submit(
      leased!.assignment.agentPredictionId,
      submission("5Validator"),
    );
    assert.equal(receipt.stored, true, "the live lease of the old version may still be submitted");
  },
);

adapterTest("retire takes unleased work out of the queue; ensure brings it back", async ({ storage }) => {
  const { events, targets } = await seedQueue(storage, { miners: 2, events: 2 });
  const [leased] = await claimAll(storage.assignments, "5Validator", 1);
  assert.equal(await storage.assignments.retire({ eventIds: [events[0]!.id] }), 1, "one was leased");
  assert.equal(await storage.assignments.retire({ minerHotkeys: [minerHotkey(1)] }), 1);
  const left = await claimAll(storage.assignments, "5Validator");
  assert.deepEqual(left.map(summary), [`${minerHotkey(0)}/${events[1]!.id}`]);
  assert.equal((await storage.assignments.get(leased!.assignment.agentPredictionId))?.status, "in_progress");
  const back = await storage.assignments.ensure(targets);
  assert.deepEqual(back, { created: 0, revived: 2, superseded: 0, stale: 0 });
  assert.equal((await claimAll(storage.assignments, "5Validator")).length, 2);
  assert.equal(await storage.assignments.retire({}), 0);
});

adapterTest("assignments of ended, resolved or retired events are never claimed", async ({ storage }) => {
  const { events } = await seedQueue(storage, { miners: 1, events: 1 });
  const nowMs = Date.now();
  const ended = { ...events[0]!, id: "polymarket-ended", endDate: new Date(nowMs - 1_000).toISOString() };
  const sample = { ...events[0]!, id: "sample-1", source: "sample" };
  await putEvents(storage, [ended, resolved(events[0]!, nowMs), sample], nowMs);
  assert.equal(await storage.events.retireSource("sample", nowMs), 1);
  await storage.assignments.ensure([targetFor(0, ended), targetFor(0, sample)]);
  assert.deepEqual(await storage.assignments.claim("5Validator", LONG_LEASE), { kind: "none" });
  assert.equal(await storage.assignments.retire({ ended: true }), 1, "the resolved event has not ended");
  assert.equal((await storage.assignments.get(idOf(targetFor(0, ended))))?.status, "retired");
});

adapterTest("a validator is refused beyond maxLive live leases", async ({ storage }) => {
  await seedQueue(storage, { miners: 2, events: 3 });
  const options = { leaseMs: 600_000, maxLive: 2 };
  const first = await storage.assignments.claim("5Validator", options);
  assert.equal((await storage.assignments.claim("5Validator", options)).kind, "claimed");
  assert.deepEqual(await storage.assignments.claim("5Validator", options), { kind: "limit", live: 2 });
  assert.equal((await storage.assignments.claim("5Other", options)).kind, "claimed", "limits are per hotkey");
  assert.equal(await storage.assignments.countLive("5Validator"), 2);
  await storage.assignments.submit((first as Claimed).assignment.agentPredictionId, submission("5Validator"));
  assert.equal(await storage.assignments.countLive("5Validator"), 1);
  assert.equal((await storage.assignments.claim("5Validator", options)).kind, "claimed");
  assert.equal((await storage.assignments.claim("5Validator", { leaseMs: 20, maxLive: 3 })).kind, "claimed");
  await waitMs(60);
  assert.equal(await storage.assignments.countLive("5Validator"), 2, "an expired lease is not live");
});

adapterTest(
  "submit stores the prediction and its trace with the server's time and the leased prices",
  async ({ storage }) => {
    await seedQueue(storage, { miners: 1, events: 1 });
    const [claimed] = await claimAll(storage.assignments, "5Validator");
    const id = claimed!.assignment.agentPredictionId;
    const sent = submission("5Validator");
    assert.deepEqual(await storage.assignments.submit(id, sent), { agentPredictionId: id, stored: true });
    const stored = await storage.assignments.getPrediction(id);
    assert.deepEqual(stored, {
      agentPredictionId: id,
      eventId: claimed!.assignment.eventId,
      agentVersionId: claimed!.assignment.agentVersionId,
      round: 0,
      minerHotkey: claimed!.assignment.minerHotkey,
      minerUid: claimed!.assignment.minerUid,
      validatorHotkey: "5Validator",
      predictedAtMs: sent.receivedAtMs,
      outcomePricesAtPrediction: claimed!.event.currentOutcomePrices,
      reported: sent.prediction,
      validation: sent.validation,
      scored: null,
    });
    assert.deepEqual(await storage.assignments.getTrace(id), sent.trace);
    assert.equal((await storage.assignments.get(id))?.status, "submitted");
    const retry = await storage.assignments.submit(id, submission("5Validator", "retry"));
    assert.deepEqual(retry, { agentPredictionId: id, stored: false });
    assert.deepEqual(await storage.assignments.getTrace(id), sent.trace, "the retry stored nothing");
    const listed = await storage.assignments.listEventPredictions(claimed!.assignment.eventId, { limit: 10 });
    assert.deepEqual(listed, [stored]);
  },
);

adapterTest("only the lease holder may submit; nothing is stored otherwise", async ({ storage }) => {
  const { targets } = await seedQueue(storage, { miners: 1, events: 2 });
  const [claimed] = await claimAll(storage.assignments, "5Holder", 1);
  const id = claimed!.assignment.agentPredictionId;
  await rejectsWith(storage.assignments.submit(id, submission("5Other")), "lease_not_held");
  const wrongToken = { ...submission("5Holder"), leaseToken: "not-the-token" };
  await rejectsWith(storage.assignments.submit(id, wrongToken), "lease_not_held");
  const neverLeased = idOf(targets.find((target) => idOf(target) !== id)!);
  await rejectsWith(storage.assignments.submit(neverLeased, submission("5Holder")), "lease_not_held");
  await rejectsWith(storage.assignments.submit("ap_unknown", submission("5Holder")), "not_found");
  assert.equal(await storage.assignments.getPrediction(id), null);
  assert.equal(await storage.assignments.getTrace(id), null);
  assert.equal((await storage.assignments.get(id))?.status, "in_progress");
  const token = { ...submission("5Holder"), leaseToken: claimed!.assignment.lease.token };
  assert.equal((await storage.assignments.submit(id, token)).stored, true);
  await rejectsWith(storage.assignments.submit(id, submission("5Other")), "lease_not_held");
});

adapterTest(
  "an expired lease is re-claimed with a new token, and the former holder is refused",
  async ({ storage }) => {
    await seedQueue(storage, { miners: 1, events: 1 });
    // Long enough for the next claim to find it live on a loaded machine, short enough to wait out.
    const first = await storage.assignments.claim("5First", { leaseMs: 400, maxLive: 10 }) as Claimed;
    assert.deepEqual(await storage.assignments.claim("5Second", SHORT_LEASE), { kind: "none" });
    await waitMs(450);
    const second = await storage.assignments.claim("5Second", LONG_LEASE) as Claimed;
    assert.equal(second.kind, "claimed");
    const id = first.assignment.agentPredictionId;
    assert.equal(second.assignment.agentPredictionId, id);
    assert.notEqual(second.assignment.lease.token, first.assignment.lease.token);
    assert.equal(second.assignment.leaseCount, 2);
    assert.equal(await storage.assignments.countLive("5First"), 0);
    await rejectsWith(storage.assignments.submit(id, submission("5First")), "lease_not_held");
    assert.equal((await storage.assignments.submit(id, submission("5Second"))).stored, true);
    assert.equal((await storage.assignments.getPrediction(id))?.validatorHotkey, "5Second");
  },
);

adapterTest(
  "after expiry the holder may submit within the grace while nobody re-claimed",
  async ({ storage }) => {
    await seedQueue(storage, { miners: 1, events: 2 });
    const a = await storage.assignments.claim("5Holder", SHORT_LEASE) as Claimed;
    const b = await storage.assignments.claim("5Holder", SHORT_LEASE) as Claimed;
    await waitMs(60);
    const late = { ...submission("5Holder"), graceMs: 0 };
    await rejectsWith(storage.assignments.submit(a.assignment.agentPredictionId, late), "lease_not_held");
    const inGrace = { ...submission("5Holder"), graceMs: 600_000 };
    assert.equal((await storage.assignments.submit(b.assignment.agentPredictionId, inGrace)).stored, true);
  },
);

adapterTest(
  "scored predictions are listed newest resolution first, in keyset pages, by window and miner",
  async ({ storage }) => {
    const { events } = await seedQueue(storage, { miners: 2, events: 3 });
    const claimed = await claimAll(storage.assignments, "5Validator");
    const resolvedAt = new Map(events.map((event, e) => [event.id, 1_000 * (e + 1)]));
    for (const { assignment } of claimed) {
      await storage.assignments.submit(assignment.agentPredictionId, submission("5Validator"));
      const mark = {
        scoredAtMs: 9_000,
        resolvedAtMs: resolvedAt.get(assignment.eventId)!,
        resolution: {
          resolutionStatus: "resolved" as const,
          resolvedOutcomeId: "yes",
          finalOutcomePrices: { yes: 1 },
        },
      };
      assert.equal(await storage.assignments.markScored(assignment.agentPredictionId, mark), true);
      assert.equal(await storage.assignments.markScored(assignment.agentPredictionId, mark), false, "once");
      assert.equal((await storage.assignments.get(assignment.agentPredictionId))?.status, "scored");
    }
    const expected = claimed.map((c) => c.assignment)
      .toSorted((a, b) =>
        resolvedAt.get(b.eventId)! - resolvedAt.get(a.eventId)! ||
        (a.agentPredictionId < b.agentPredictionId ? -1 : 1)
      )
      .map((a) => a.agentPredictionId);
    const seen: string[] = [];
    let after;
    for (let page = 0; page < 10; page++) {
      const rows = await storage.assignments.listScored({
        resolvedSinceMs: 0,
        limit: 4,
        ...(after ? { after } : {}),
      });
      seen.push(...rows.map((row) => row.agentPredictionId));
      if (rows.length < 4) break;
      const last = rows.at(-1)!;
      after = { resolvedAtMs: last.scored!.resolvedAtMs, agentPredictionId: last.agentPredictionId };
    }
    assert.deepEqual(seen, expected);
    const recent = await storage.assignments.listScored({ resolvedSinceMs: 2_000, limit: 10 });
    assert.deepEqual(recent.map((row) => row.agentPredictionId), expected.slice(0, 4));
    const miner = await storage.assignments.listScored({
      resolvedSinceMs: 0,
      limit: 10,
      miners: [{ hotkey: minerHotkey(1), uid: 1 }, { hotkey: minerHotkey(0), uid: 7 }],
    });
    assert.deepEqual(
      miner.map((row) => row.minerHotkey),
      Array(3).fill(minerHotkey(1)),
      "uid 7 is not miner 0's",
    );
    await rejectsWith(storage.assignments.markScored("ap_unknown", { ...miner[0]!.scored! }), "not_found");
  },
);

adapterTest(
  "markScoredMany marks a batch in one step: each once, unknown ids and other events' ids left alone",
  async ({ storage }) => {
    await seedQueue(storage, { miners: 3, events: 2 });
    const claimed = await claimAll(storage.assignments, "5Validator");
    const ids = claimed.map((c) => c.assignment.agentPredictionId);
    const eventOf = new Map(claimed.map((c) => [c.assignment.agentPredictionId, c.assignment.eventId]));
    const events = [...new Set(eventOf.values())];
    for (const id of ids.slice(1)) await storage.assignments.submit(id, submission("5Validator"));
    const mark = {
      scoredAtMs: 9_000,
      resolvedAtMs: 8_000,
      resolution: {
        resolutionStatus: "resolved" as const,
        resolvedOutcomeId: "yes",
        finalOutcomePrices: { yes: 1 },
      },
    };
    assert.equal(await storage.assignments.markScored(ids[1]!, mark), true);
    // ids[0] was never submitted (no prediction), ids[1] is already scored.
    const groups = (extra: string[]) =>
      events.map((eventId) => ({
        ...mark,
        eventId,
        agentPredictionIds: [...ids.filter((id) => eventOf.get(id) === eventId), ...extra],
      }));
    const [other] = ids.filter((id) => id !== ids[1] && eventOf.get(id) !== eventOf.get(ids[1]!));
    const wrongEvent = { ...mark, eventId: eventOf.get(ids[1]!)!, agentPredictionIds: [other!] };
    assert.equal(await storage.assignments.markScoredMany([wrongEvent]), 0, "not a prediction of that event");
    assert.equal(await storage.assignments.markScoredMany(groups(["ap_unknown"])), ids.length - 2);
    assert.equal(await storage.assignments.markScoredMany(groups([])), 0, "once");
    assert.equal(
      await storage.assignments.markScoredMany([{ ...mark, eventId: events[0]!, agentPredictionIds: [] }]),
      0,
    );
    assert.equal(await storage.assignments.markScoredMany([]), 0);
    assert.equal((await storage.assignments.get(ids[0]!))?.status, "in_progress");
    for (const id of ids.slice(1)) {
      assert.equal((await storage.assignments.get(id))?.status, "scored");
      assert.deepEqual((await storage.assignments.getPrediction(id))?.scored, {
        scoredAtMs: 9_000,
        resolvedAtMs: 8_000,
        resolution: mark.resolution,
      });
    }
  },
);

adapterTest(
  "a submission judged against an event version no longer stored writes nothing and says so",
  async ({ storage }) => {
    await seedQueue(storage, { miners: 1, events: 2 });
    const a = await storage.assignments.claim("5Holder", LONG_LEASE) as Claimed;
    const b = await storage.assignments.claim("5Holder", LONG_LEASE) as Claimed;
    const stored = await storage.events.get(a.assignment.eventId);
    assert.equal(a.eventVersion, stored?.version, "the claim names the version it handed out");
    const sameVersion = { ...submission("5Holder"), eventVersion: a.eventVersion };
    assert.deepEqual(await storage.assignments.submit(a.assignment.agentPredictionId, sameVersion), {
      agentPredictionId: a.assignment.agentPredictionId,
      stored: true,
    });
    const bId = b.assignment.agentPredictionId;
    await putEvents(storage, [{ ...b.event, question: `${b.event.question} (edited)` }], Date.now());
    const stale = { ...submission("5Holder"), eventVersion: b.eventVersion };
    await rejectsWith(
      storage.assignments.submit(bId, { ...stale, validatorHotkey: "5Other" }),
      "lease_not_held",
    );
    assert.deepEqual(await storage.assignments.submit(bId, stale), {
      agentPredictionId: bId,
      stored: false,
      eventChanged: true,
    });
    assert.equal(await storage.assignments.getPrediction(bId), null);
    assert.equal((await storage.assignments.get(bId))?.status, "in_progress", "the lease is kept");
    const current = (await storage.events.get(b.assignment.eventId))!.version;
    assert.equal((await storage.assignments.submit(bId, { ...stale, eventVersion: current })).stored, true);
  },
);
