import assert from "node:assert/strict";
import { runAdmin } from "../../../scripts/admin/admin.ts";
import { openTestService } from "../../support/test_service.ts";
import { ADMIN_TOKEN } from "../../support/access.ts";

/** The CLI against a live service with the given settings (the admin API on). */
async function cliAgainst(extraEnv: Record<string, string>) {
  const service = await openTestService({ env: { FGW_ADMIN_TOKEN: ADMIN_TOKEN, ...extraEnv } });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, service.app.fetch);
  const env = { FGW_URL: `http://127.0.0.1:${server.addr.port}`, FGW_ADMIN_TOKEN: ADMIN_TOKEN };
  const cli = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin(argv, { env, out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };
  return {
    cli,
    [Symbol.asyncDispose]: async () => {
      await server.shutdown();
      await service.close();
    },
  };
}

Deno.test("admin CLI invite prints the sign-in link once; members lists it; audit shows who made it", async () => {
  await using admin = await cliAgainst({ FGW_PUBLIC_URL: "http://localhost:8123" });
  const { cli } = admin;
  const orgId = JSON.parse((await cli("org", "create", "Acme", "--json")).out).id as string;
  const invited = await cli("invite", orgId, "--role", "owner");
  assert.equal(invited.code, 0, invited.err);
  const link = /^link\s+(\S+)/m.exec(invited.out)?.[1];
  assert.match(
    link ?? "",
    /^http:\/\/localhost:8123\/dashboard\/invitations\/[0-9a-f]{24}\.[A-Za-z0-9_-]{43}$/,
  );
  assert.match(invited.out, /shown only now/);
  assert.match(invited.out, /role\s+owner/);

  const members = await cli("members", orgId);
  assert.equal(members.code, 0, members.err);
  assert.match(members.out, /members:\n\s+\(none\)/);
  assert.match(members.out, new RegExp(link!.split("/").at(-1)!.split(".")[0]!));
  assert.ok(!members.out.includes(link!), "the link is not shown again");

  const audit = await cli("audit", orgId);
  assert.equal(audit.code, 0, audit.err);
  assert.match(audit.out, /invitation\.created/);

  const reenrol = await cli("reenrol", orgId, "mbr_000000000000000000000000");
  assert.equal(reenrol.code, 1);
  assert.match(reenrol.err, /not_found \(HTTP 404\)/);
  const noRole = await cli("invite", orgId);
  assert.equal(noRole.code, 2);
  assert.match(noRole.err, /invite needs --role/);
  const badRole = await cli("invite", orgId, "--role", "admin");
  assert.equal(badRole.code, 1);
  assert.match(badRole.err, /role:/);
});

Deno.test("admin CLI invite against a service without FGW_PUBLIC_URL says how to turn the dashboard on", async () => {
  await using admin = await cliAgainst({});
  const orgId = JSON.parse((await admin.cli("org", "create", "Acme", "--json")).out).id as string;
  const refused = await admin.cli("invite", orgId, "--role", "owner");
  assert.equal(refused.code, 1);
  assert.match(refused.err, /dashboard_off \(HTTP 409\): The dashboard is off: set FGW_PUBLIC_URL/);
});
