"""The sandbox's system-call filter: a seccomp BPF program built with libseccomp.

bubblewrap installs it (``--seccomp FD``) just before it starts the graded program, so it binds
the program and everything it starts. The policy is an **allow-list**: the calls a Python
program that computes, reads and writes its own files, keeps time, uses threads and ends
needs (``ALLOWED``, the calls graded runs make under ``strace``, plus their obvious siblings)
run; every other call fails with EPERM ("Operation not permitted"), so a call nobody thought of
is refused, not let through. Within that:

* **killed** (the process dies of SIGSYS, and the server logs it), because an attempt is an
  attack and the verdict should say so: the kernel keyring (a store that outlives the run), new
  namespaces and mounts, tracing and other processes' memory, BPF and perf, userfaultfd,
  io_uring, kernel modules, kexec, reboot, swap, clock setting, accounting, quotas, handles to
  arbitrary files, file-system watches (``inotify_*``, ``fanotify_*``: a watch on the shared
  root sees every file another run opens, issue 22.2), and the calls that reveal or change
  whether a file's pages are cached (``fadvise64``, ``mincore``, ``readahead``, ``cachestat``,
  ``preadv2``/``pwritev2``: a page-cache channel between two runs);
* **refused with EPERM** as everything unlisted, and named here because a program may well try
  them: pipes, sockets and ``memfd_create`` (each new one takes its inode number from one
  counter the whole kernel shares, ``get_next_ino``, so a run that creates some sees how many
  other runs created since: a channel between runs; the run's network namespace had no network
  anyway), ``statfs``/``fstatfs`` (the free space of the shared in-memory root changes with
  other runs' task folders), ``sysinfo`` (the host's free memory and process count);
* ``clone`` that asks for a new namespace is killed; ``clone3`` fails with ENOSYS (its flags sit
  in memory a filter cannot read) and the C library falls back to ``clone``;
* for a run with exercise rules, ``fork``, ``vfork`` and ``clone`` fail with EPERM: one process,
  one thread (no second interpreter, no thread that runs kael's autograd unseen).

Calls of another architecture's ABI (i386, x32) kill the process: libseccomp's filter covers the
native architecture only, and its bad-architecture action is to kill.
"""

from __future__ import annotations

import errno
import tempfile
import threading

# What graded programs may do. Names libseccomp does not know on this architecture are skipped.
ALLOWED = (
    # memory
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "msync",
    # files: the read-only root and task folder, the run's own /tmp
    "read", "write", "readv", "writev", "pread64", "pwrite64", "lseek", "close", "close_range",
    "open", "openat", "openat2", "creat", "stat", "fstat", "lstat", "newfstatat", "statx",
    "access", "faccessat", "faccessat2", "getdents", "getdents64", "readlink", "readlinkat",
    "getcwd", "chdir", "fchdir", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename",
    "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat", "truncate", "ftruncate",
    "fallocate", "fsync", "fdatasync", "chmod", "fchmod", "fchmodat", "utime", "utimes",
    "utimensat", "futimesat", "umask", "dup", "dup2", "dup3", "fcntl", "ioctl", "flock",
    "sendfile", "copy_file_range", "getxattr", "lgetxattr", "fgetxattr", "listxattr",
    "llistxattr", "flistxattr", "poll", "ppoll", "select", "pselect6",
    # time
    "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time",
    "times", "alarm", "setitimer", "getitimer", "timer_create", "timer_settime", "timer_gettime",
    "timer_getoverrun", "timer_delete",
    # signals (kill reaches only the run's own pid namespace)
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigsuspend",
    "rt_sigtimedwait", "sigaltstack", "pause", "kill", "tgkill", "tkill",
    # the process itself
    "getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid", "getresuid",
    "getresgid", "getgroups", "getpgid", "getpgrp", "getsid", "setpgid", "setsid",
    "getpriority", "setpriority", "getrlimit", "setrlimit", "prlimit64", "getrusage",
    "sched_getaffinity", "sched_yield", "sched_getparam", "sched_getscheduler",
    "sched_get_priority_max", "sched_get_priority_min", "uname", "arch_prctl", "set_tid_address",
    "set_robust_list", "get_robust_list", "rseq", "futex", "getrandom", "prctl",
    "exit", "exit_group", "wait4", "waitid", "execve",
    # new processes (threads: clone, below, without namespace flags; rules refuse them all)
    "fork", "vfork",
    # setpriv, after bwrap installs the filter: drop to the slot's uid, no capabilities
    # (no_new_privs and an empty bounding set: these can only give things up)
    "capget", "capset", "setgroups", "setresuid", "setresgid", "setuid", "setgid", "setreuid",
    "setregid",
)
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
# Refused like every unlisted call; named so that a change to ALLOWED cannot let them in.
REFUSED = ("pipe", "pipe2", "socket", "socketpair", "memfd_create", "statfs", "fstatfs",
           "sysinfo", "ustat", "eventfd", "eventfd2", "epoll_create", "epoll_create1")
NAMESPACE_FLAGS = 0x7E020000  # CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET

# With ``single_process`` (an exercise with rules): no new process and no new thread at all.
# RLIMIT_NPROC cannot say this (it counts every process and thread of the slot's uid, the
# reference's concurrent run included), the filter can: bwrap installs it after its last fork,
# and setpriv and python only exec.
NEW_TASKS = ("fork", "vfork", "clone")

assert not set(ALLOWED) & (set(KILLED) | set(REFUSED)), "a call is both allowed and denied"

_lock = threading.Lock()
_programs: dict[bool, bytes] = {}


def _add(f, action, name, *args) -> None:
    try:
        f.add_rule(action, name, *args)
    except (RuntimeError, ValueError, OSError):
        pass  # not a system call on this architecture / libseccomp


def build_filter(single_process: bool = False):
    import pyseccomp as sc

    f = sc.SyscallFilter(sc.ERRNO(errno.EPERM))
    for name in ALLOWED:
        if not (single_process and name in NEW_TASKS):
            _add(f, sc.ALLOW, name)
    for name in KILLED:
        _add(f, sc.KILL_PROCESS, name)
    for bit in range(32):  # clone(flags, ...) asking for any new namespace
        flag = 1 << bit
        if NAMESPACE_FLAGS & flag:
            f.add_rule(sc.KILL_PROCESS, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    if not single_process:  # a thread or a process: clone without any namespace flag
        f.add_rule(sc.ALLOW, "clone", sc.Arg(0, sc.MASKED_EQ, NAMESPACE_FLAGS, 0))
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
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
