# The escape suite's probes of limits and kernel interfaces (see escape_probes.py, which this
# text follows).


def fill(path, most):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    written = 0
    try:
        while written < most:
            written += os.write(fd, b"\xff" * MIB)
    except OSError as error:
        return written, failure(error)
    finally:
        os.close(fd)
    return written, "none"


def probe_fill_scratch(harm, seen):
    total = 0
    for place in (".", "/tmp", "/dev/shm"):
        written, stopped = fill(os.path.join(place, "fill"), 100 * MIB)
        seen[place] = f"{written // MIB} MiB ({stopped})"
        total += written
    seen["total MiB"] = total // MIB
    if total > PARAMS["writableBytes"]:
        harm.append(f"wrote {total // MIB} MiB")


def name_process(name):
    LIBC.prctl(15, name.encode()[:15], 0, 0, 0)  # PR_SET_NAME: what /proc/<pid>/comm shows


def probe_fork_bomb(harm, seen):
    children = 0
    try:
        while children < 500:
            if os.fork() == 0:
                name_process("fgw" + PARAMS["marker"])
                time.sleep(3600)
                os._exit(0)
            children += 1
    except OSError as error:
        seen["fork stopped"] = failure(error)
    seen["children"] = children
    if children >= PARAMS["processes"]:
        harm.append(f"{children} processes")


def probe_threads(harm, seen):
    import threading

    done = threading.Event()
    threads = 0
    try:
        while threads < 500:
            threading.Thread(target=done.wait, daemon=True).start()
            threads += 1
    except RuntimeError as error:
        seen["threads stopped"] = text(error)
    done.set()
    seen["threads"] = threads
    if threads >= PARAMS["processes"]:
        harm.append(f"{threads} threads")


def probe_memory(harm, seen):
    try:
        block = b"\xff" * (1200 * MIB)
        harm.append(f"allocated {len(block) // MIB} MiB")
    except MemoryError:
        seen["allocation"] = "MemoryError"


def probe_spin(harm, seen):
    while True:
        pass


def probe_setsid_child(harm, seen):
    program = f"import time\ntime.sleep(600)  # {PARAMS['marker']}"
    child = subprocess.Popen([sys.executable, "-c", program], start_new_session=True,
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen["child"] = child.pid
    if os.fork() == 0:  # a daemon: fork, setsid, fork
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", program])
        os._exit(0)


def probe_stdout_flood(harm, seen):
    line = b"x" * 65535 + b"\n"
    for _ in range(1600):
        os.write(1, line)
    seen["wrote MB"] = 1600 * len(line) // 1_000_000


def probe_tiocsti(harm, seen):
    import fcntl
    import termios

    def inject(fd):
        return fcntl.ioctl(fd, termios.TIOCSTI, b"x")

    attempt([], seen, "open /dev/tty", lambda: os.close(os.open("/dev/tty", os.O_RDWR)))
    for fd in (0, 1, 2):
        attempt(harm, seen, f"TIOCSTI on fd {fd}", lambda fd=fd: inject(fd))
    try:
        tty = os.open("/dev/tty", os.O_RDWR)
    except OSError:
        return
    attempt(harm, seen, "TIOCSTI on /dev/tty", lambda: inject(tty))


def probe_ipc(harm, seen):
    key = PARAMS["ipcKey"]
    create = 0o1000 | 0o666  # IPC_CREAT
    seen["shmget"] = attempt([], seen, "shmget", lambda: libc_call("shmget", key, 4096, create))
    seen["msgget"] = attempt([], seen, "msgget", lambda: libc_call("msgget", key, create))
    seen["semget"] = attempt([], seen, "semget", lambda: libc_call("semget", key, 1, create))
    name = ("/fgw-escape-" + PARAMS["marker"]).encode()
    seen["mq_open"] = attempt([], seen, "mq_open", lambda: libc_call("mq_open", name, 0o100 | 2, 0o600, None))
    seen["shm file"] = attempt([], seen, "shm file", lambda: write("/dev/shm" + name.decode()))
    for kind in ("shm", "msg", "sem"):
        lines = read(f"/proc/sysvipc/{kind}", 1 << 16).decode().splitlines()[1:]
        foreign = [line.split()[0] for line in lines if int(line.split()[0]) != key]
        if foreign:
            harm.append(f"saw the host's System V {kind}: {foreign[:5]}")


def probe_user_namespace(harm, seen):
    for name, flag in (("user", 0x10000000), ("mount", 0x00020000), ("network", 0x40000000), ("pid", 0x20000000)):
        attempt(harm, seen, f"unshare {name}", lambda f=flag: libc_call("unshare", f))
    attempt(harm, seen, "clone3", lambda: libc_call("syscall", syscall_number(435, 435), None, 0))


def probe_mount(harm, seen):
    attempt(harm, seen, "mount tmpfs", lambda: libc_call("mount", b"none", b".", b"tmpfs", 0, None))
    attempt(harm, seen, "bind /", lambda: libc_call("mount", b"/", b".", None, 0x1000, None))
    attempt(harm, seen, "umount /proc", lambda: libc_call("umount2", b"/proc", 2))


def probe_ptrace(harm, seen):
    attempt(harm, seen, "PTRACE_TRACEME", lambda: libc_call("ptrace", 0, 0, None, None))
    attempt(harm, seen, "PTRACE_ATTACH parent", lambda: libc_call("ptrace", 16, os.getppid(), None, None))
    attempt(harm, seen, "read /proc/1/mem", lambda: read("/proc/1/mem", 16))


def probe_keyctl(harm, seen):
    keyctl, add_key = syscall_number(250, 219), syscall_number(248, 217)
    attempt(harm, seen, "keyctl session keyring", lambda: libc_call("syscall", keyctl, 0, -3, 1))
    attempt(harm, seen, "add_key", lambda: libc_call("syscall", add_key, b"user", b"fgw", b"x", 1, -2))
    try:  # the run's user's own keyrings: nothing it can read or change with the calls above denied
        seen["/proc/keys lines"] = len(read("/proc/keys", 1 << 16).splitlines())
    except OSError as error:
        seen["/proc/keys"] = failure(error)
