import assert from "node:assert/strict";
import { fetchDocument } from "../http/openapi_support.ts";
import { openTestService } from "../support/test_service.ts";

const SIGNED_ROUTES = [
  ["get", "/v1/validators/agent-and-event"],
  ["post", "/v1/validators/prediction"],
] as const;

Deno.test("validator routes document the signature scheme, its headers and 401/403/429/503 with Retry-After", async () => {
  await using service = await openTestService();
  const doc = await fetchDocument(service.request);
  const scheme = doc.components["securitySchemes"]?.["validatorSignature"] as Record<string, string>;
  assert.equal(scheme.type, "apiKey");
  assert.equal(scheme.name, "x-validator-signature");
  for (const [method, path] of SIGNED_ROUTES) {
    const operation = doc.paths[path]?.[method];
    assert.ok(operation, `${method} ${path} is documented`);
    assert.deepEqual(operation.security, [{ validatorSignature: [] }]);
    const headers = (operation.parameters ?? []).filter((p) => p.in === "header").map((p) => p.name);
    assert.deepEqual(headers.toSorted(), [
      "x-validator-hotkey",
      "x-validator-nonce",
      "x-validator-signature",
      "x-validator-timestamp",
    ]);
    for (const status of ["400", "401", "403", "429", "500", "503"]) {
      assert.ok(operation.responses[status], `${method} ${path} documents ${status}`);
    }
    for (const status of ["429", "503"]) {
      assert.ok(operation.responses[status]?.headers?.["Retry-After"], `${path} ${status} has Retry-After`);
    }
    assert.equal(operation.responses["401"]?.headers?.["WWW-Authenticate"], undefined, "no Bearer challenge");
    const forbidden = operation.responses["403"]!.description;
    for (const code of ["wrong_auth_scheme", "hotkey_not_in_metagraph", "validator_permit_required"]) {
      assert.match(forbidden, new RegExp(code));
    }
    for (const code of ["invalid_signature", "timestamp_out_of_window", "nonce_reused", "unauthenticated"]) {
      assert.match(operation.responses["401"]!.description, new RegExp(code));
    }
  }
  const submit = doc.paths["/v1/validators/prediction"]!["post"]!;
  for (const status of ["404", "409", "413", "415"]) {
    assert.ok(submit.responses[status], `submit documents ${status}`);
  }
});
