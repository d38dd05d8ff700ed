"""The sandbox's system-call filter: a seccomp BPF program built with libseccomp.

bubblewrap installs it (``--seccomp FD``) just before it starts the graded program, so it binds
the program and everything it starts. The policy allows by default and denies what no graded
program needs and what would let a run escape, persist or talk to another run:

* **killed** (the process dies of SIGSYS, and the server logs it): the kernel keyring
  (a store that outlives the run), new namespaces and mounts (a user namespace would give the
  program a root of its own), tracing and other processes' memory, BPF and perf, userfaultfd,
  io_uring (a second, unfiltered path to most system calls), kernel modules, kexec, reboot,
  swap, clock setting, accounting, quotas, handles to arbitrary files;
* **killed as well**: file-system watches (``inotify_*``, ``fanotify_*``): the root is shared
  read-only by every run, and a watch on it sees every file another run opens (issue 22.2);
* **killed as well**: the calls that reveal or change whether a file's pages are cached
  (``fadvise64``, ``mincore``, ``readahead``, ``cachestat``, ``preadv2``/``pwritev2`` whose
  ``RWF_NOWAIT`` flag is a residency probe): a page-cache channel between two runs;
* ``clone`` that asks for a new namespace is killed; ``clone3`` fails with ENOSYS (its flags sit
  in memory a filter cannot read) and the C library falls back to ``clone``;
* for a run with exercise rules, ``fork``, ``vfork`` and ``clone`` fail with EPERM: one process,
  one thread (no second interpreter, no thread that runs kael's autograd unseen);
* sockets other than Unix, IPv4 and IPv6 (netlink, packet, ...) fail with EAFNOSUPPORT.
"""

from __future__ import annotations

import errno
import socket
import tempfile
import threading

# Names libseccomp resolves for this architecture; unknown ones are skipped (older kernels).
KILLED = (
    "keyctl", "add_key", "request_key",
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "mount_setattr", "move_mount",
    "open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
    "swapon", "swapoff", "acct", "quotactl", "syslog", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "iopl", "ioperm", "lookup_dcookie", "open_by_handle_at", "name_to_handle_at",
    "inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch", "fanotify_init",
    "fanotify_mark", "personality", "vhangup", "nfsservctl", "uselib",
    # page-cache residency probes
    "fadvise64", "mincore", "readahead", "cachestat", "preadv2", "pwritev2",
)
NAMESPACE_FLAGS = 0x7E020000  # CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET
ALLOWED_FAMILIES = (socket.AF_UNIX, socket.AF_INET, socket.AF_INET6)

# With ``single_process`` (an exercise with rules): no new process and no new thread at all.
# RLIMIT_NPROC cannot say this (it counts every process and thread of the slot's uid, the
# reference's concurrent run included), the filter can: bwrap installs it after its last fork,
# and setpriv and python only exec.
NEW_TASKS = ("fork", "vfork", "clone")

_lock = threading.Lock()
_programs: dict[bool, bytes] = {}


def build_filter(single_process: bool = False):
    import pyseccomp as sc

    f = sc.SyscallFilter(sc.ALLOW)
    for name in KILLED:
        try:
            f.add_rule(sc.KILL_PROCESS, name)
        except (RuntimeError, ValueError, OSError):
            pass  # not a system call on this architecture / libseccomp
    for bit in range(32):  # clone(flags, ...) asking for any new namespace
        flag = 1 << bit
        if NAMESPACE_FLAGS & flag:
            f.add_rule(sc.KILL_PROCESS, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    if single_process:
        for name in NEW_TASKS:  # a namespace flag still kills (KILL outranks ERRNO)
            f.add_rule(sc.ERRNO(errno.EPERM), name)
    refuse = sc.ERRNO(errno.EAFNOSUPPORT)
    for family in range(max(ALLOWED_FAMILIES)):
        if family not in ALLOWED_FAMILIES:
            f.add_rule(refuse, "socket", sc.Arg(0, sc.EQ, family))
    f.add_rule(refuse, "socket", sc.Arg(0, sc.GT, max(ALLOWED_FAMILIES)))
    return f


def program(single_process: bool = False) -> bytes:
    """The BPF program (each variant built once per process)."""
    with _lock:
        if single_process not in _programs:
            with tempfile.TemporaryFile() as out:
                build_filter(single_process).export_bpf(out)
                out.seek(0)
                _programs[single_process] = out.read()
        return _programs[single_process]
