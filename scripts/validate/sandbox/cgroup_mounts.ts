/**
 * Where a validator may make its runs' cgroups, read from `/proc/self/mountinfo` and
 * `/proc/self/cgroup` (pure: the texts are given). cgroup v1 (a hierarchy per controller, as on
 * older distributions and many VMs): beneath the validator's own cgroup of each controller, so
 * that runs count against the validator's own limits. cgroup v2 (one unified hierarchy): beside
 * the top, because a v2 cgroup holding processes (the validator's) cannot give controllers to
 * children.
 */

/** The folder made beneath (v1) or beside (v2) the validator's cgroup for its runs. */
const BASE_NAME = "fgw-agent";

/** Where run cgroups go: a folder per controller (v2: the same folder for all). */
export interface CgroupPlaces {
  version: 1 | 2;
  memory: string;
  pids: string;
  /** Absent when no CPU controller is mounted (a run then gets one pinned CPU instead). */
  cpu: string | null;
  /** v2: the hierarchy's top, whose `cgroup.subtree_control` must enable the controllers. */
  top: string | null;
}

interface Mount {
  root: string;
  point: string;
  fstype: string;
  options: string[];
}

/** The cgroup places, or null when neither a v1 memory and pids pair nor a v2 hierarchy is mounted. */
export function cgroupPlaces(mountinfo: string, selfCgroup: string): CgroupPlaces | null {
  const mounts = parseMountinfo(mountinfo);
  return v1Places(mounts, selfCgroup) ?? v2Places(mounts);
}

function parseMountinfo(text: string): Mount[] {
  return text.split("\n").flatMap((line) => {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    if (dash < 5 || fields.length < dash + 3) return [];
    return [{
      root: unescapeMount(fields[3]!),
      point: unescapeMount(fields[4]!),
      fstype: fields[dash + 1]!,
      options: fields[dash + 3]?.split(",") ?? [],
    }];
  });
}

/** mountinfo writes space, tab, newline and backslash as octal escapes (`\040`). */
function unescapeMount(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

function v1Places(mounts: Mount[], selfCgroup: string): CgroupPlaces | null {
  const own = ownV1Paths(selfCgroup);
  const place = (controller: string): string | null => {
    const mount = mounts.find((m) => m.fstype === "cgroup" && m.options.includes(controller));
    if (!mount) return null;
    const path = own.get(controller) ?? "/";
    const inside = path.startsWith(mount.root) ? path.slice(mount.root.length) : "";
    return joinPath(mount.point, inside, BASE_NAME);
  };
  const memory = place("memory");
  const pids = place("pids");
  if (memory === null || pids === null) return null;
  return { version: 1, memory, pids, cpu: place("cpu"), top: null };
}

/** controller → the validator's cgroup path in that v1 hierarchy. */
function ownV1Paths(selfCgroup: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of selfCgroup.split("\n")) {
    const [, controllers, path] = line.match(/^\d+:([^:]+):(.*)$/) ?? [];
    if (controllers === undefined || path === undefined) continue;
    for (const controller of controllers.split(",")) paths.set(controller, path);
  }
  return paths;
}

function v2Places(mounts: Mount[]): CgroupPlaces | null {
  const mount = mounts.find((m) => m.fstype === "cgroup2" && m.root === "/");
  if (!mount) return null;
  const base = joinPath(mount.point, BASE_NAME);
  return { version: 2, memory: base, pids: base, cpu: base, top: mount.point };
}

function joinPath(...parts: string[]): string {
  return parts.join("/").replace(/\/+/g, "/").replace(/\/$/, "");
}
