"""The agent sandbox's seccomp deny-list (docs/agents.md, "Isolation"), built with libseccomp.

`filter_fd()` returns a memory file holding the filter as BPF, for bubblewrap's `--seccomp FD`:
bubblewrap loads it just before it starts the agent's interpreter, so it covers the runner and
everything the agent starts. Everything not listed is allowed; a listed call fails with EPERM
(`clone3` with ENOSYS, so that the C library falls back to `clone`, whose flags the filter can
read). Calls of another architecture's ABI (32-bit x86 on x86-64) kill the process.
"""

import errno
import os

import seccomp

# Debugging and reading other processes' memory; mounting; the kernel's key store; namespaces
# entered by descriptor; kernel-wide state (modules, clocks, swap, reboot, accounting); kernel
# interfaces with a history of escapes (BPF, perf, userfaultfd, io_uring, handles); CPU affinity
# (the CPU a run was pinned to when no cgroup caps its CPU time).
DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    "mount", "umount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "keyctl", "add_key", "request_key",
    "setns",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "open_by_handle_at", "name_to_handle_at", "lookup_dcookie",
    "iopl", "ioperm", "uselib", "ustat", "sysfs", "vhangup", "nfsservctl", "_sysctl",
    "sched_setaffinity",
)

# clone/unshare flags that make a namespace (CLONE_NEWTIME only for unshare: in clone's first
# argument its bit is part of the exit signal).
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
CLONE_NEWTIME = 0x00000080

# ioctl requests that push input into a terminal or drive the console.
TIOCSTI = 0x5412
TIOCLINUX = 0x541C


def _deny_flags(rules, syscall, flags):
    for flag in flags:
        rules.add_rule(seccomp.ERRNO(errno.EPERM), syscall, seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))


def build():
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in DENIED:
        try:
            rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
        except (RuntimeError, ValueError):  # not a system call of this architecture
            pass
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    _deny_flags(rules, "unshare", NAMESPACE_FLAGS + (CLONE_NEWTIME,))
    _deny_flags(rules, "clone", NAMESPACE_FLAGS)
    for request in (TIOCSTI, TIOCLINUX):
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, request))
    return rules


def filter_fd():
    """A descriptor (inheritable, at offset 0) of a memory file holding the filter's BPF."""
    fd = os.memfd_create("fgw-seccomp", 0)
    with os.fdopen(os.dup(fd), "wb") as out:
        build().export_bpf(out)
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, True)
    return fd
