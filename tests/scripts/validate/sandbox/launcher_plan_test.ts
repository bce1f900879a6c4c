import assert from "node:assert/strict";
import { userIn } from "../../../../scripts/validate/sandbox/agent_user.ts";
import { launcherArgs, launcherPlan } from "../../../../scripts/validate/sandbox/launcher_plan.ts";
import type { SandboxHost } from "../../../../scripts/validate/sandbox/sandbox_host.ts";

const HOST: SandboxHost = {
  bwrap: "/usr/bin/bwrap",
  bwrapVersion: "0.8.0",
  python: "/usr/bin/python3",
  seccompModuleDir: "/usr/lib/python3/dist-packages",
  roots: [{ path: "/usr", link: null }, { path: "/lib", link: "usr/lib" }],
  user: { uid: 999, gid: 995 },
  cgroups: {
    version: 1,
    memory: "/cg/memory/fgw-agent",
    pids: "/cg/pids/fgw-agent",
    cpu: "/cg/cpu/fgw-agent",
    top: null,
  },
};
const RUNNER: [string, string] = ["/repo/agent_runner.py", "/run/fgw/runner.py"];

Deno.test("with cgroups, a run joins them and is neither capped by RLIMIT_AS nor pinned to a CPU", () => {
  const plan = launcherPlan({
    host: HOST,
    cgroupProcs: ["/cg/memory/fgw-agent/run-1/cgroup.procs"],
    slot: 3,
    copies: [RUNNER],
  });
  assert.equal(plan.rlimits.AS, undefined);
  assert.equal(plan.cpuSlot, null);
  assert.deepEqual(plan.user, { uid: 999, gid: 995 });
});

Deno.test("without cgroups, memory is capped by RLIMIT_AS and the run is pinned to one CPU", () => {
  const plan = launcherPlan({
    host: { ...HOST, cgroups: null, user: null },
    cgroupProcs: [],
    slot: 3,
    copies: [RUNNER],
  });
  assert.equal(plan.rlimits.AS, 1024 ** 3);
  assert.equal(plan.cpuSlot, 3);
  assert.equal(plan.user, null, "a validator that is not root runs agents as itself");
});

Deno.test("bubblewrap unshares everything, drops capabilities, and makes the root read-only after every mount", () => {
  const { args } = launcherPlan({ host: HOST, cgroupProcs: [], slot: 0, copies: [RUNNER] });
  const command = args.indexOf("--");
  for (
    const flag of [
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--new-session",
      "--die-with-parent",
      "--clearenv",
    ]
  ) {
    assert.ok(args.slice(0, command).includes(flag), flag);
  }
  assert.deepEqual(args.slice(args.indexOf("--cap-drop"), args.indexOf("--cap-drop") + 2), [
    "--cap-drop",
    "ALL",
  ]);
  const lastMount = Math.max(
    ...["--bind", "--ro-bind", "--tmpfs", "--dev-bind"].map((flag) => args.lastIndexOf(flag)),
  );
  assert.ok(args.lastIndexOf("--remount-ro") > lastMount);
  assert.deepEqual(args.slice(command + 1, command + 6), [
    "/usr/bin/python3",
    "-I",
    "-S",
    "-B",
    "/run/fgw/runner.py",
  ]);
});

Deno.test("the relay socket is bound at /run/fgw/relay.sock, and the library put on the import path, only when given", () => {
  const bare = launcherPlan({ host: HOST, cgroupProcs: [], slot: 0, copies: [RUNNER] }).args;
  assert.ok(!bare.includes("/run/fgw/relay.sock") && !bare.includes("--lib"));
  const lib: [string, string] = [
    "/lib/forecasting_gateway/__init__.py",
    "/run/fgw/lib/forecasting_gateway/__init__.py",
  ];
  const given = launcherPlan({
    host: HOST,
    cgroupProcs: [],
    slot: 0,
    copies: [RUNNER, lib],
    relaySocket: "/tmp/r/relay.sock",
  }).args;
  const bind = given.indexOf("/tmp/r/relay.sock");
  assert.deepEqual(given.slice(bind - 1, bind + 2), ["--bind", "/tmp/r/relay.sock", "/run/fgw/relay.sock"]);
  assert.deepEqual(given.slice(given.indexOf("--lib"), given.indexOf("--lib") + 2), [
    "--lib",
    "/run/fgw/lib",
  ]);
});

Deno.test("the launcher's arguments carry the whole plan, bubblewrap's arguments after --", () => {
  const plan = launcherPlan({ host: HOST, cgroupProcs: ["/cg/a/cgroup.procs"], slot: 0, copies: [RUNNER] });
  const argv = launcherArgs(plan);
  assert.deepEqual(argv.slice(0, 2), ["--cgroup", "/cg/a/cgroup.procs"]);
  assert.ok(argv.join(" ").includes("--user 999 995"));
  assert.ok(argv.join(" ").includes("--copy /repo/agent_runner.py /run/fgw/runner.py"));
  assert.deepEqual(argv.slice(argv.indexOf("--") + 1), plan.args);
});

Deno.test("the agent user's ids are read from passwd, and a missing user is none", () => {
  const passwd = "root:x:0:0:root:/root:/bin/bash\nfgw-agent:x:999:995::/nonexistent:/usr/sbin/nologin\n";
  assert.deepEqual(userIn(passwd, "fgw-agent"), { uid: 999, gid: 995 });
  assert.equal(userIn(passwd, "nobody"), null);
});
