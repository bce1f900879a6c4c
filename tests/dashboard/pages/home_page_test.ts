import assert from "node:assert/strict";
import { ADMIN_TOKEN, adminInit, createOrg } from "../../support/access.ts";
import { memberBrowser } from "../../support/dashboard_member.ts";
import { openTestService } from "../../support/test_service.ts";

const ON = { FGW_ADMIN_TOKEN: ADMIN_TOKEN, FGW_PUBLIC_URL: "http://localhost:8080" };

Deno.test("the home page shows the organisation, its credit from the org actor and the member's role, no-store", async () => {
  await using service = await openTestService({ env: ON });
  const orgId = await createOrg(service.request, "Acme <b>Forecasts</b>");
  const credit = await service.request(
    `/admin/v1/orgs/${orgId}/credits`,
    adminInit("POST", { amountMicro: "2500000", reference: "top-up-1" }),
  );
  assert.equal(credit.status, 201);
  const viewer = await memberBrowser(service, orgId, "viewer");
  const response = await viewer.fetch(
    (path, init) => service.request(path, init),
    "/dashboard",
    { headers: { accept: "text/html" } },
  );
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("cache-control"), "no-store");
  const html = await response.text();
  assert.match(html, /<h1>Acme &lt;b&gt;Forecasts&lt;\/b&gt;<\/h1>/);
  assert.match(html, /data-available-micro="2500000">2\.500000</);
  assert.match(html, /data-held-micro="0">0\.000000</);
  assert.match(html, /a viewer/);
  assert.match(html, /href="\/dashboard\/keys"/);
});
