import assert from "node:assert/strict";
import { cgroupPlaces } from "../../../../scripts/validate/sandbox/cgroup_mounts.ts";

const V1_MOUNTS = [
  "30 25 0:27 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755",
  "31 30 0:28 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
  "32 30 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct",
  "33 30 0:30 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
  "34 30 0:31 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
].join("\n");
const V1_SELF = "12:pids:/\n4:memory:/system.slice/validator.service\n3:cpu,cpuacct:/system.slice\n0::/\n";

Deno.test("on cgroup v1, runs go beneath the validator's own cgroup of each controller", () => {
  assert.deepEqual(cgroupPlaces(V1_MOUNTS, V1_SELF), {
    version: 1,
    memory: "/sys/fs/cgroup/memory/system.slice/validator.service/fgw-agent",
    pids: "/sys/fs/cgroup/pids/fgw-agent",
    cpu: "/sys/fs/cgroup/cpu,cpuacct/system.slice/fgw-agent",
    top: null,
  });
});

Deno.test("a v1 hierarchy mounted from inside (a container) is followed from its mount's root", () => {
  const mounts = [
    "33 30 0:30 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory",
    "34 30 0:31 /docker/abc /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids",
  ].join("\n");
  const places = cgroupPlaces(mounts, "4:memory:/docker/abc/inner\n5:pids:/docker/abc\n");
  assert.equal(places?.memory, "/sys/fs/cgroup/memory/inner/fgw-agent");
  assert.equal(places?.pids, "/sys/fs/cgroup/pids/fgw-agent");
  assert.equal(places?.cpu, null, "no CPU controller: the run is pinned to a CPU instead");
});

Deno.test("on cgroup v2 alone, runs go in one folder beside the top, whose controllers are enabled", () => {
  const mounts = "30 25 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate";
  assert.deepEqual(cgroupPlaces(mounts, "0::/user.slice/user-1000.slice/session-2.scope\n"), {
    version: 2,
    memory: "/sys/fs/cgroup/fgw-agent",
    pids: "/sys/fs/cgroup/fgw-agent",
    cpu: "/sys/fs/cgroup/fgw-agent",
    top: "/sys/fs/cgroup",
  });
});

Deno.test("without a memory and pids pair or a v2 hierarchy there is no cgroup place (rlimits instead)", () => {
  const memoryOnly = "33 30 0:30 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory";
  assert.equal(cgroupPlaces(memoryOnly, "4:memory:/\n"), null);
  assert.equal(cgroupPlaces("", ""), null);
});

Deno.test("mount points with escaped spaces are read as the kernel wrote them", () => {
  const mounts = [
    "33 30 0:30 / /sys/fs/cgroup/my\\040memory rw - cgroup cgroup rw,memory",
    "34 30 0:31 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids",
  ].join("\n");
  assert.equal(cgroupPlaces(mounts, "")?.memory, "/sys/fs/cgroup/my memory/fgw-agent");
});
