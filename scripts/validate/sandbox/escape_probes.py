# The escape suite's hostile agent (docs/agents.md, "The escape suite"): this file, then
# escape_probes_network.py and escape_probes_kernel.py, with PARAMS = {...} above and
# `CHECK = "<name>"` below. agent_main runs probe_<name> and returns a valid prediction whose
# reasoning is {"check", "harm", "seen"}: `harm` lists what the agent managed that the sandbox
# should have stopped (empty when it held), `seen` what stopped it.
import ctypes
import errno
import os
import platform
import signal
import socket
import subprocess
import sys
import time

LIBC = ctypes.CDLL(None, use_errno=True)
MIB = 1 << 20


def text(value, most=300):
    return str(value).replace("\0", " ")[:most]


def failure(error):
    code = getattr(error, "errno", None)
    return errno.errorcode.get(code, type(error).__name__) if code else type(error).__name__


def attempt(harm, seen, label, action):
    """Runs `action`; a success is harm (named `label`), a failure what was seen."""
    try:
        result = action()
    except BaseException as error:  # noqa: BLE001 (every way of failing is a way of being stopped)
        seen[label] = failure(error)
        return False
    harm.append(f"{label}: {text(result, 120)}")
    return True


def libc_call(name, *args):
    result = getattr(LIBC, name)(*args)
    if result < 0:
        raise OSError(ctypes.get_errno(), name)
    return result


def syscall_number(x86_64, aarch64):
    return aarch64 if platform.machine() in ("aarch64", "arm64") else x86_64


def read(path, size=256):
    with open(path, "rb") as source:
        return source.read(size)


def proc_pids():
    return sorted((p for p in os.listdir("/proc") if p.isdigit()), key=int)


def probe_environ(harm, seen):
    for pid in dict.fromkeys([str(os.getppid()), "1"] + proc_pids()):
        try:
            variables = [v for v in read(f"/proc/{pid}/environ", 1 << 16).decode(errors="replace").split("\0") if v]
        except OSError as error:
            seen[pid] = failure(error)
            continue
        seen[pid] = text(variables)
        secret = PARAMS["secret"] and any(PARAMS["secret"] in v for v in variables)
        # bubblewrap sets PWD for the working directory, Python's locale coercion LC_CTYPE.
        foreign = [v.split("=")[0] for v in variables if v.split("=")[0] not in ("PWD", "LC_CTYPE")]
        if secret or foreign:
            harm.append(f"/proc/{pid}/environ: {text(foreign, 120)}{' (the secret)' if secret else ''}")


def probe_files(harm, seen):
    paths = PARAMS["secretPaths"] + [PARAMS["repoDir"] + "/deno.json", "/etc/shadow", "/etc/passwd"]
    for path in paths + ["/proc/1/root/etc/shadow"]:
        attempt(harm, seen, f"read {path}", lambda path=path: read(path, 64))
    for folder in (PARAMS["homeDir"], PARAMS["repoDir"], "/root", "/home"):
        attempt(harm, seen, f"list {folder}", lambda folder=folder: os.listdir(folder)[:5])


def probe_processes(harm, seen):
    pids = proc_pids()
    seen["pids"] = pids
    for pid in pids:
        try:
            command = read(f"/proc/{pid}/cmdline", 512).decode(errors="replace").replace("\0", " ")
        except OSError as error:
            command = failure(error)
        seen[pid] = text(command, 120)
        if any(word in command for word in ("deno", "postgres", "validate")):
            harm.append(f"saw process {pid}: {text(command, 80)}")
    if len(pids) > 8:
        harm.append(f"saw {len(pids)} processes")


def probe_signal(harm, seen):
    parent = os.getppid()
    seen["ppid"] = parent
    for number in (signal.SIGTERM, signal.SIGKILL):
        seen[f"signal parent {number}"] = attempt([], seen, f"signal {number}", lambda n=number: os.kill(parent, n))
    seen["signal all"] = attempt([], seen, "kill -1", lambda: os.kill(-1, signal.SIGKILL))
    if parent != 1:
        harm.append(f"the parent is process {parent}, outside the sandbox's own PID namespace")


def write(path, data=b"fgw escape\n"):
    with open(path, "wb") as target:
        return target.write(data)


def probe_write_outside(harm, seen):
    name = "fgw-escape-" + PARAMS["marker"]
    for folder in ("/", "/usr", "/usr/lib", "/run/fgw", "/dev", "/proc", "/etc", PARAMS["hostTmp"], PARAMS["repoDir"]):
        attempt(harm, seen, f"write {folder}", lambda f=folder: write(os.path.join(f, name)))


def probe_symlink(harm, seen):
    targets = {"passwd": "/etc/passwd", "repo": PARAMS["repoDir"] + "/deno.json", "home": PARAMS["homeDir"],
               "secret": PARAMS["secretPaths"][0], "up": "../../../../../../etc/passwd"}
    for name, target in targets.items():
        os.symlink(target, name)
        attempt(harm, seen, f"read through {name} -> {target}",
                lambda n=name: os.listdir(n)[:3] if os.path.isdir(n) else read(n, 64))


def probe_identity(harm, seen):
    status = dict(line.split(":\t", 1) for line in read("/proc/self/status", 1 << 16).decode().splitlines() if ":\t" in line)
    for field in ("Uid", "Gid", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp"):
        seen[field] = status.get(field, "?")
    if int(status["CapEff"], 16) or int(status["CapPrm"], 16) or int(status["CapBnd"], 16):
        harm.append(f"capabilities: {status['CapEff']}")
    if status.get("NoNewPrivs") != "1" or status.get("Seccomp") != "2":
        harm.append("no seccomp filter or new privileges allowed")
    write("identity-probe")
    program = f"import signal\nsignal.sigwait([signal.SIGUSR1])  # {PARAMS['marker']}"
    waiter = subprocess.Popen([sys.executable, "-c", program])
    try:
        # 0: sigwait returned; -SIGUSR1: the signal came before Python blocked it. Either way it came.
        seen["observed"] = waiter.wait(timeout=PARAMS["observeSeconds"]) in (0, -signal.SIGUSR1)
    except subprocess.TimeoutExpired:
        waiter.kill()
        seen["observed"] = False


def probe_deep_result(harm, seen):
    nested = []
    for _ in range(100_000):
        nested = [nested]
    return nested


def probe_deep_result_raw(harm, seen):
    os.write(3, b'{"ok": true, "result": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    os._exit(0)


def probe_fake_failure(harm, seen):
    sys.stderr.write("bwrap: Creating new namespace failed: Operation not permitted\n")
    sys.stderr.flush()
    os._exit(1)


def agent_main(event):
    harm, seen = [], {}
    extra = globals()["probe_" + CHECK](harm, seen)
    ids = [outcome["outcomeId"] for outcome in event["outcomes"]]
    reasoning = {"check": CHECK, "harm": harm, "seen": {text(k, 80): text(v) for k, v in seen.items()}}
    if extra is not None:
        reasoning["extra"] = extra
    return {"predictedOutcomeId": ids[0], "confidence": 0.5,
            "outcomeProbabilities": {i: 1 / len(ids) for i in ids}, "reasoning": reasoning}

