"""Starts one sandboxed agent run on the validator's host (docs/agents.md, "Running agents safely").

The validator runs this trusted script (the system interpreter, `-I -S -B`) with the run's plan as
arguments (built by `launcher_plan.ts`; plain arguments, since importing a JSON parser would cost
more than the rest of the script):

    launcher.py [--cgroup PROCS_FILE]... [--rlimit NAME VALUE]... [--nice N] [--cpu-slot N]
                [--user UID GID] --seccomp-module DIR [--copy HOST_FILE INSIDE]... --bwrap PATH
                -- BWRAP_ARGUMENTS...

It leads a new session (the validator kills the group at the time limit), joins the run's
cgroups, lowers its CPU priority, sets its resource limits, pins one CPU when no cgroup caps the
run's CPU time, builds the seccomp filter (`seccomp_filter.py`), opens the files bubblewrap copies
into the sandbox, drops to the agent user when started as root, and replaces itself with
bubblewrap. All of it happens before anything of the agent's runs: a failure here ends the
process without the runner's "started" mark, which makes it the validator's failure.
"""

import os
import resource
import sys

ARITY = {"--cgroup": 1, "--rlimit": 2, "--nice": 1, "--cpu-slot": 1, "--user": 2,
         "--seccomp-module": 1, "--copy": 2, "--bwrap": 1}


def parse(argv):
    """{flag: [values, ...]} for the flags before "--", and the arguments after it."""
    plan = {flag: [] for flag in ARITY}
    at = 0
    while argv[at] != "--":
        flag = argv[at]
        plan[flag].append(argv[at + 1:at + 1 + ARITY[flag]])
        at += 1 + ARITY[flag]
    return plan, argv[at + 1:]


def join_cgroups(plan):
    for (procs,) in plan["--cgroup"]:
        with open(procs, "w", encoding="ascii") as target:
            target.write(str(os.getpid()))


def set_limits(plan):
    for (nice,) in plan["--nice"]:
        os.setpriority(os.PRIO_PROCESS, 0, int(nice))
    for name, value in plan["--rlimit"]:
        resource.setrlimit(getattr(resource, "RLIMIT_" + name), (int(value), int(value)))
    for (slot,) in plan["--cpu-slot"]:
        allowed = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {allowed[int(slot) % len(allowed)]})


def inheritable_fd(path):
    fd = os.open(path, os.O_RDONLY)
    os.set_inheritable(fd, True)
    return fd


def bwrap_argv(plan, bwrap, rest):
    sys.path[:0] = [os.path.dirname(os.path.abspath(__file__))] + [d for (d,) in plan["--seccomp-module"]]
    import seccomp_filter  # found through the paths above

    argv = [bwrap, "--seccomp", str(seccomp_filter.filter_fd())]
    for host_path, inside in plan["--copy"]:
        argv += ["--ro-bind-data", str(inheritable_fd(host_path)), inside]
    return argv + rest


def drop_to(plan):
    for uid, gid in plan["--user"]:
        os.setgroups([])
        os.setresgid(int(gid), int(gid), int(gid))
        os.setresuid(int(uid), int(uid), int(uid))
    if 0 in os.getresuid() and plan["--user"]:
        raise SystemExit("launcher: could not leave uid 0")


def main():
    plan, rest = parse(sys.argv[1:])
    (bwrap,), = plan["--bwrap"]
    os.setsid()
    join_cgroups(plan)
    set_limits(plan)
    argv = bwrap_argv(plan, bwrap, rest)
    drop_to(plan)
    os.execv(bwrap, argv)


if __name__ == "__main__":
    main()
