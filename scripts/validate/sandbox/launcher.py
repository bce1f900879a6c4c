"""Starts one sandboxed agent run on the validator's host (docs/agents.md, "Running agents safely").

The validator runs this trusted script (a system interpreter, `-I -S`) with the run's plan as its
one argument (JSON, built by `launcher_plan.ts`). It leads a new session (the validator kills the
group at the time limit), joins the run's cgroups, lowers its CPU priority, sets its resource
limits, pins one CPU when no cgroup caps the run's CPU time, builds the seccomp filter
(`seccomp_filter.py`), opens the files bubblewrap copies into the sandbox, drops to the agent
user when started as root, and replaces itself with bubblewrap. All of it happens before
anything of the agent's runs; a failure here ends the process without the runner's "started"
mark, which makes it the validator's failure.
"""

import json
import os
import resource
import sys


def join_cgroups(procs_files):
    for path in procs_files:
        with open(path, "w", encoding="ascii") as procs:
            procs.write(str(os.getpid()))


def set_limits(plan):
    os.setpriority(os.PRIO_PROCESS, 0, plan["nice"])
    for name, value in plan["rlimits"].items():
        resource.setrlimit(getattr(resource, "RLIMIT_" + name), (value, value))
    slot = plan["cpuSlot"]
    if slot is not None:
        allowed = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {allowed[slot % len(allowed)]})


def inheritable_fd(path):
    fd = os.open(path, os.O_RDONLY)
    os.set_inheritable(fd, True)
    return fd


def bwrap_argv(plan):
    sys.path.insert(0, plan["seccompModuleDir"])
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import seccomp_filter  # noqa: E402 (found through the paths above)

    argv = [plan["bwrap"], "--seccomp", str(seccomp_filter.filter_fd())]
    for host_path, inside in plan["copies"]:
        argv += ["--ro-bind-data", str(inheritable_fd(host_path)), inside]
    return argv + plan["args"]


def drop_to(user):
    if user is None:
        return
    os.setgroups([])
    os.setresgid(user["gid"], user["gid"], user["gid"])
    os.setresuid(user["uid"], user["uid"], user["uid"])
    if os.getuid() == 0 or os.geteuid() == 0:
        raise SystemExit("launcher: could not leave uid 0")


def main():
    plan = json.loads(sys.argv[1])
    os.setsid()
    join_cgroups(plan["cgroupProcs"])
    set_limits(plan)
    argv = bwrap_argv(plan)
    drop_to(plan["user"])
    os.execv(plan["bwrap"], argv)


if __name__ == "__main__":
    main()
