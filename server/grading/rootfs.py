"""The sandbox's root file system: a minimal copy of what a graded run needs, in memory.

A sandboxed run sees nothing of the host's file systems. It sees, read-only, a root made once
per interpreter (and shared by every server and run on the machine):

    /usr/bin/python3.X             the interpreter
    /usr/lib/python3.X/            its standard library (no site-packages, no test suite, no GUI)
    /usr/lib/...                   exactly the shared libraries those need (found with ldd)
    /opt/kael/kael/                kael's source (a copy made per server, below)

and both live on a tmpfs (``/dev/shm``). That is the point: a file the sandbox can read but
whose pages can be evicted from the page cache is a channel between runs (evict a page in one
run, time or probe it in the next). Memory-backed pages on a machine without swap are never
evicted, so the runs share nothing that one can change and another can observe. Host paths
never appear in the sandbox's mount table either: every source lies under a neutral
``/dev/shm/kael-sandbox-*`` folder.
"""

from __future__ import annotations

import atexit
import hashlib
import logging
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

log = logging.getLogger("kael.server")

SHM = Path("/dev/shm")
ROOT_PREFIX = "kael-sandbox-root-"
PRIVATE_PREFIX = "kael-sandbox-private-"
# Parts of the standard library a graded run never needs: its test suite, GUI toolkits, the
# installer and tools. Leaving them out keeps the root small and fast to build.
SKIP_DIRS = {"site-packages", "dist-packages", "test", "tests", "idlelib", "tkinter", "turtledemo",
             "ensurepip", "lib2to3", "config-3", "__phello__"}
SKIP_MODULES = ("_tkinter", "_curses", "_curses_panel", "readline", "_gdbm", "_dbm", "nis",
                "_ssl", "_hashlib", "_sqlite3", "_uuid", "_crypt")


class RootfsError(RuntimeError):
    pass


def _version_dir() -> str:
    return f"python{sys.version_info.major}.{sys.version_info.minor}"


def _key() -> str:
    """Names a root by what it copies: the interpreter binary and its standard library."""
    python = os.path.realpath(sys.executable)
    stdlib = sysconfig.get_paths()["stdlib"]
    h = hashlib.sha256()
    for path in (python, stdlib, os.path.join(stdlib, "os.py"), os.path.join(stdlib, "lib-dynload")):
        st = os.stat(path)
        h.update(f"{path}:{st.st_size}:{st.st_mtime_ns}\0".encode())
    h.update(sys.version.encode())
    return h.hexdigest()[:16]


def _ignore(directory: str, names: list[str]) -> set[str]:
    skipped = set()
    for name in names:
        if name in SKIP_DIRS or name.startswith("config-"):
            skipped.add(name)
        elif name.endswith((".opt-1.pyc", ".opt-2.pyc", ".a", ".exe")):
            skipped.add(name)
        elif name.endswith(".so") and name.split(".")[0] in SKIP_MODULES:
            skipped.add(name)
    return skipped


def _shared_libraries(binaries: list[str]) -> set[str]:
    """Every shared library (and the loader) that ``binaries`` load, as ldd resolves them."""
    libs = set()
    for binary in binaries:
        out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            parts = line.split()
            if "=>" in parts and len(parts) >= 3 and parts[2].startswith("/"):
                libs.add(parts[2])
            elif parts and parts[0].startswith("/"):
                libs.add(parts[0])  # the loader: /lib64/ld-linux-x86-64.so.2
    return libs


def _library_place(target: Path, lib: str, multiarch: str) -> Path:
    """Where ``lib`` goes in the root: the loader where the program headers name it, every
    other library by its name in the loader's default search path (there is no ld.so.cache;
    libpython's own RUNPATH points at a host folder the sandbox does not have)."""
    if "/ld-linux" in lib or "/ld64" in lib:
        dest = target / lib.lstrip("/")
    else:
        dest = target / "usr" / "lib" / multiarch / os.path.basename(lib)
    dest.parent.mkdir(parents=True, exist_ok=True)
    return dest


def _build(target: Path) -> None:
    python = os.path.realpath(sys.executable)
    stdlib = sysconfig.get_paths()["stdlib"]
    version = _version_dir()
    usr = target / "usr"
    (usr / "bin").mkdir(parents=True)
    shutil.copy2(python, usr / "bin" / version)
    os.symlink(version, usr / "bin" / "python3")
    shutil.copytree(stdlib, usr / "lib" / version, ignore=_ignore, symlinks=False)
    dynload = usr / "lib" / version / "lib-dynload"
    binaries = [python] + [str(p) for p in dynload.glob("*.so")]
    setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
    shutil.copy2(setpriv, usr / "bin" / "setpriv")  # drops the uid and capabilities inside
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    for lib in sorted(_shared_libraries(binaries + [setpriv])):
        shutil.copy2(os.path.realpath(lib), _library_place(target, lib, multiarch))
    for name in ("tmp", "task", "opt/kael"):
        (target / name).mkdir(parents=True, exist_ok=True)
    for p in [target, *target.rglob("*")]:
        if not p.is_symlink():
            os.chmod(p, 0o755 if p.is_dir() or os.access(p, os.X_OK) else 0o644)


def ensure_root() -> Path:
    """The shared root for this interpreter, built once (atomically) and reused."""
    final = SHM / (ROOT_PREFIX + _key())
    if (final / ".complete").exists():
        return final
    if not SHM.is_dir():
        raise RootfsError(f"{SHM} is missing: the sandbox's root file system lives on that tmpfs")
    work = Path(tempfile.mkdtemp(prefix=".building-", dir=SHM))
    try:
        _build(work)
        (work / ".complete").write_text("")
        os.chmod(work, 0o755)
        try:
            os.rename(work, final)
        except OSError:
            if not (final / ".complete").exists():  # a half-built leftover: replace it
                shutil.rmtree(final, ignore_errors=True)
                os.rename(work, final)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    log.info("sandbox root file system built at %s", final)
    return final


def stage_private(kael_dir: Path) -> Path:
    """This server process's own folder on the tmpfs, private to root (0700): a compiled copy of
    kael's source in ``kael/`` and the runs' task folders in ``tasks/``. Folders of processes
    that no longer exist (a server killed with -9) are removed first, hidden tests and all."""
    import compileall

    remove_stale()
    private = Path(tempfile.mkdtemp(prefix=f"{PRIVATE_PREFIX}{os.getpid()}-", dir=SHM))  # 0700
    shutil.copytree(kael_dir, private / "kael", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    compileall.compile_dir(str(private / "kael"), quiet=2)
    for p in [private / "kael", *(private / "kael").rglob("*")]:
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    (private / "tasks").mkdir(mode=0o700)
    (private / "staging").mkdir(mode=0o700)  # task folders before they have their final mode
    atexit.register(shutil.rmtree, private, True)
    return private


def remove_stale() -> None:
    """Remove private folders whose server process no longer exists."""
    for path in SHM.glob(PRIVATE_PREFIX + "*"):
        pid = path.name[len(PRIVATE_PREFIX):].split("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(path, ignore_errors=True)


# The sandbox has no /proc at all. Its per-process folders take their inode numbers from the
# kernel's one shared counter (``get_next_ino``, as pipes and sockets do), so a run that looks
# up new ones sees how many other runs made since; and every machine-wide file in it (memory,
# CPU time, load, pressure) moves with what other runs do. Python, kael and the harness need
# none of it. ``sandbox.self_test`` checks from inside that the root holds only ``ROOT_ENTRIES``.
ROOT_ENTRIES = frozenset({"usr", "lib64", "lib", "bin", "opt", "task", "tmp", "dev"})
