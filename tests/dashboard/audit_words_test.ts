import assert from "node:assert/strict";
import { whatHappened, whoDid } from "../../routes/dashboard/audit/audit_words.ts";
import { AUDIT_ACTIONS, type AuditEntry } from "../../storage/audit_store.ts";

const entry = (action: AuditEntry["action"], details: AuditEntry["details"] = {}): AuditEntry => ({
  id: "aud_1",
  orgId: "org_1",
  atMs: 0,
  by: { kind: "member", memberId: "mbr_1" },
  action,
  subject: "subject_1",
  details,
});
const nameOf = (memberId: string) => `name of ${memberId}`;

Deno.test("every audit action reads as a sentence on the audit page", () => {
  for (const action of AUDIT_ACTIONS) {
    const words = whatHappened(entry(action), nameOf);
    assert.equal(typeof words, "string", action);
    assert.ok(words.length > 0, action);
  }
});

Deno.test("the low-balance warning's entry names the threshold in credits, or says it was cleared", () => {
  assert.equal(
    whatHappened(entry("low_balance.set", { thresholdMicro: "2500000" }), nameOf),
    "set the low-balance warning at 2.500000 credits",
  );
  assert.equal(
    whatHappened(entry("low_balance.set", { thresholdMicro: null }), nameOf),
    "cleared the low-balance warning",
  );
  assert.equal(whoDid(entry("low_balance.set"), nameOf), "name of mbr_1");
});
