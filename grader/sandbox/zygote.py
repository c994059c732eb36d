"""The zygote: a process with numpy already imported that forks one worker per submission.

Starting Python and importing numpy costs 0.1-0.3 s; forking a process that has
done so costs a few milliseconds. The trusted grader starts one zygote (inside
the sandbox when bubblewrap is available) and asks it for a fresh worker for each
submission. Isolation stays per submission: every worker gets a new private
copy of its files, new pipes, new resource limits, and when it is done the
zygote kills every other process it can see and wipes the scratch filesystem.

This file is standalone (standard library, numpy and ``runtime.py``): inside the
sandbox nothing else of the grader is visible.

usage: python zygote.py RUNTIME_PY CONTROL_FD [--uid UID --gid GID] [--seccomp-fd FD] [--ptys hide] [--root DIR]
                        [--tag TEXT]

(``--seccomp-fd``: where bubblewrap is not there to do it, the zygote installs the
seccomp filter read from FD itself, after giving up root, before it imports anything.)

(``--ptys hide``: as root without bubblewrap, a mount namespace of its own in which every devpts is
covered before root is given up: see :func:`hide_ptys`.)

(``--tag`` is only there to be seen in ``ps``: every worker inherits it.)

Control protocol (an AF_UNIX stream socket, ``runtime``'s framing; file
descriptors travel as SCM_RIGHTS with the message header)::

    <- {"ready": true, "pid": ..., "pid1": ...}
    -> {"op": "spawn", "limits": {...}, "env": {...}}
       + fds [request_read, response_write, output, files]
    <- {"ok": true, "pid": ...}
    -> {"op": "status", "wait": seconds}        <- {"ok": true, "exited": bool, "code": int|null}
    -> {"op": "usage"}                          <- {"ok": true, "peak_memory": bytes|null}
    -> {"op": "kill"}                           <- {"ok": true, "code": ..., "clean": bool, "peak_memory": ...}

``files`` is a file holding ``{relpath: base64}`` as JSON: only the forked worker reads
it, so the zygote, whose heap every later worker inherits, never holds a student's bytes
(decoded in the zygote, one student's file was found by the next student's worker in
its own memory).

``peak_memory`` is what the kernel says of the worker, never what the worker says:
the peak of its address space (``VmPeak``, which ``RLIMIT_AS`` bounds) while it
runs, the peak of its resident memory (``wait4``'s rusage) once it has exited.
"""

import base64
import ctypes
import errno
import importlib.util
import os
import re
import signal
import socket
import stat
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
KEYCTL_CLEAR = 7
KEY_SPEC_USER_KEYRING = -4
KEY_SPEC_USER_SESSION_KEYRING = -5
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}
MAX_FDS = 8
REAP_DEADLINE = 5.0


def prctl(option, value):
    """``prctl(option, value)`` (Linux); OSError when it fails. Also used by the trusted side."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(%d) failed" % option)


PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


def install_filter(fd):
    """Install the classic BPF program read from ``fd`` on this process (and all it forks)."""
    with os.fdopen(fd, "rb") as source:
        program = source.read()

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_char_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS failed")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "installing the seccomp filter failed")


CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REC, MS_PRIVATE = 0x4000, 1 << 18


def hide_ptys():
    """Cover every devpts mount with an empty read-only tmpfs, in a mount namespace of this process's own;
    "" if done, else why not (then this process must not run student code).

    Without bubblewrap the host's ``/dev/ptmx`` is there, and a pty counts in the host's pool from its
    ``open``, which the seccomp filter cannot tell from any other. A ``ptmx`` opens the devpts mounted on
    ``pts`` beside it: with a tmpfs on top, ``ENODEV``. Needs root's ``CAP_SYS_ADMIN`` (a container's root
    often lacks it); the worker, no longer root and under the filter (no ``umount``), cannot undo it.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]

    def failed(what):
        code = ctypes.get_errno()
        return "%s: %s" % (what, os.strerror(code) if code else "failed")

    try:
        with open("/proc/self/mountinfo", "rb") as table:
            points = [line.split()[4] for line in table if line.split(b" - ", 1)[-1].startswith(b"devpts ")]
    except (OSError, IndexError) as exc:
        return "reading /proc/self/mountinfo: %s" % exc
    if libc.unshare(CLONE_NEWNS) != 0:
        return failed("unshare(CLONE_NEWNS)")
    # Private first: a mount that propagated back would hide the host's own ptys from the host.
    if libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return failed("making / private")
    flags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC
    for point in dict.fromkeys(points):  # mountinfo writes a space, tab, newline or backslash as \ooo
        path = re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m.group(1), 8)]), point)
        if libc.mount(b"grader-no-pts", path, b"tmpfs", flags, b"mode=000,size=4k") != 0:
            return failed("covering %r" % path)
    return ""


def _load_runtime(path):
    spec = importlib.util.spec_from_file_location("runtime", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["runtime"] = module
    spec.loader.exec_module(module)  # imports numpy: the point of the zygote
    return module


class Zygote:
    def __init__(self, runtime, control_fd, root, own_uid=False):
        self.runtime = runtime
        self.sock = socket.socket(fileno=control_fd)
        self.root = root
        self.own_uid = own_uid  # a user id of its own (the sandbox, as root): its keyrings are ours
        self.pid1 = os.getpid() == 1
        self.child = None
        self.child_code = None
        self.child_rss = None
        self.device = os.stat(root).st_dev
        self.skeleton = _scan(root)

    # -- control messages -------------------------------------------------------
    def receive(self):
        """Next message and the descriptors sent with it, or (None, []) at end of stream."""
        header, fds, _, _ = socket.recv_fds(self.sock, self.runtime.HEADER.size, MAX_FDS)
        if not header:
            return None, fds
        while len(header) < self.runtime.HEADER.size:
            more = self.sock.recv(self.runtime.HEADER.size - len(header))
            if not more:
                return None, fds
            header += more
        (length,) = self.runtime.HEADER.unpack(header)
        chunks, left = [], length
        while left:
            chunk = self.sock.recv(min(left, 1 << 20))
            if not chunk:
                return None, fds
            chunks.append(chunk)
            left -= len(chunk)
        import json

        return json.loads(b"".join(chunks).decode("utf-8")), fds

    def reply(self, message):
        self.runtime.send(self.sock.fileno(), message)

    def serve(self):
        import numpy

        self.reply(
            {
                "ok": True,
                "ready": True,
                "pid": os.getpid(),
                "pid1": self.pid1,
                "uid": os.getuid(),
                "numpy": numpy.__version__,
            }
        )
        while True:
            message, fds = self.receive()
            if message is None:
                for fd in fds:
                    os.close(fd)
                self.cleanup()
                return
            op = message.get("op")
            try:
                if op == "spawn":
                    self.reply(self.spawn(message, fds))
                    continue
                for fd in fds:
                    os.close(fd)
                if op == "kill":
                    code, clean, peak = self.cleanup()
                    self.reply({"ok": True, "code": code, "clean": clean, "peak_memory": peak})
                elif op == "status":
                    self.reply(self.status(float(message.get("wait", 0.0))))
                elif op == "usage":
                    self.reply({"ok": True, "peak_memory": self.peak_memory()})
                elif op == "ping":
                    self.reply({"ok": True})
                else:
                    self.reply({"ok": False, "message": "unknown op %r" % op})
            except OSError as exc:
                self.reply({"ok": False, "message": "%s: %s" % (type(exc).__name__, exc)})

    # -- one worker -------------------------------------------------------------
    def spawn(self, message, fds):
        if len(fds) != 4:
            for fd in fds:
                os.close(fd)
            return {"ok": False, "message": "spawn needs 4 descriptors, got %d" % len(fds)}
        try:
            return self._spawn(message, fds)
        finally:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _spawn(self, message, fds):
        self.cleanup()
        request_r, response_w, output, files = fds
        base = os.path.join(self.root, "grader")
        submission = os.path.join(base, "submission")
        work = os.path.join(base, "work")
        for path in (base, submission, work):
            os.makedirs(path, mode=0o700, exist_ok=True)
        env = dict(message.get("env", {}))
        env["HOME"] = env["TMPDIR"] = work
        reply_limit = int(message.get("reply_bytes", self.runtime.MAX_MESSAGE_BYTES))
        pid = os.fork()
        if pid == 0:
            self._child(fds, submission, work, message.get("limits", {}), env, reply_limit)
        self.child, self.child_code, self.child_rss = pid, None, None
        return {"ok": True, "pid": pid}

    def _child(self, fds, submission, work, limits, env, reply_limit):
        """Runs in the forked worker; never returns. ``fds``: its request, response, output and files
        descriptors, as :meth:`_spawn` received them."""
        code = 1
        request_r, response_w, output, files = fds
        try:
            os.setsid()
            _write_files(files, submission)  # here, not in the zygote: see the module's docstring
            os.close(files)
            # The control socket must not reach the student; detach so a later GC
            # cannot close whatever descriptor reuses its number.
            os.close(self.sock.detach())
            os.dup2(output, 1)
            os.dup2(output, 2)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            keep = {0, 1, 2, request_r, response_w}
            for fd in _open_fds():
                if fd not in keep:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.environ.clear()
            os.environ.update(env)
            os.chdir(work)
            import resource

            for name, (soft, hard) in sorted(limits.items()):
                resource.setrlimit(getattr(resource, name), (soft, hard))
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.reconfigure(line_buffering=True)
                except (AttributeError, ValueError):
                    pass
            self.runtime.serve(submission, request_r, response_w, reply_limit)
            code = 0
        except BaseException:  # the worker must never fall back into the zygote's loop
            try:
                import traceback

                traceback.print_exc()
            except BaseException:
                pass
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except BaseException:
                    pass
            os._exit(code)

    def status(self, wait):
        deadline = time.monotonic() + max(wait, 0.0)
        while True:
            self._reap()
            if self.child is None or self.child_code is not None:
                return {"ok": True, "exited": True, "code": self.child_code}
            if time.monotonic() >= deadline:
                return {"ok": True, "exited": False, "code": None}
            time.sleep(0.005)

    def _reap(self):
        """Collect every exited child; remember the worker's exit code and peak memory."""
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if pid == self.child:
                self.child_code = os.waitstatus_to_exitcode(status)
                self.child_rss = usage.ru_maxrss * 1024

    def peak_memory(self):
        """The worker's peak memory in bytes, as the kernel tells it (None: no worker)."""
        self._reap()
        if self.child is None:
            return None
        if self.child_code is None:
            peak = _vm_peak(self.child)
            if peak is not None:
                return peak
        return self.child_rss

    def cleanup(self):
        """Kill every process but this one, wipe the scratch space; (worker exit code, clean, peak memory)."""
        peak = self.peak_memory()  # read before the kill: a dead process has no VmPeak
        deadline = time.monotonic() + REAP_DEADLINE
        clean = True
        while True:
            victims = self._kill_all()
            alive = self._reap()
            if not alive and not victims:
                break
            if time.monotonic() > deadline:
                clean = False
                break
            time.sleep(0.002)
        code = self.child_code
        if self.child is not None and code is None:
            code = -signal.SIGKILL
        peak = max((p for p in (peak, self.child_rss) if p is not None), default=None)
        self.child, self.child_code, self.child_rss = None, None, None
        if not _wipe(self.root, self.device, self.skeleton) or not _intact(self.skeleton):
            clean = False
        if self.pid1:
            # POSIX shared memory and message queues live in the sandbox's own /dev/shm and
            # /dev/mqueue (the seccomp filter also denies mq_*; this holds without it).
            for shared in ("/dev/shm", "/dev/mqueue"):
                if os.path.isdir(shared) and os.access(shared, os.W_OK):
                    if not _wipe(shared, os.stat(shared).st_dev, {}):
                        clean = False
            if self.own_uid and not _clear_keyrings():
                clean = False
            # System V IPC objects outlive processes; a zygote holding any is replaced.
            for kind in ("shm", "sem", "msg"):
                try:
                    with open("/proc/sysvipc/" + kind) as table:
                        if len(table.read().strip().splitlines()) > 1:
                            clean = False
                except OSError:
                    pass
        return code, clean, peak

    def _kill_all(self):
        """SIGKILL every other process; True if there was any."""
        if self.pid1:
            # PID 1 of the sandbox's PID namespace: -1 means everyone else in it.
            try:
                os.kill(-1, signal.SIGKILL)
                return True
            except ProcessLookupError:
                return False
        # Without a PID namespace: the zygote is a child subreaper, so every
        # descendant that was orphaned (double fork, setsid) became its child.
        victims = children(os.getpid())
        for pid in victims:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        return bool(victims)


def _write_files(fd, submission):
    """Write the submission's files, read as JSON ``{relpath: base64}`` from ``fd``."""
    import json

    with os.fdopen(os.dup(fd), "rb") as source:
        source.seek(0)
        files = json.loads(source.read().decode("utf-8"))
    for rel, data in files.items():
        parts = rel.split("/")
        if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise OSError("bad file name %r" % rel)
        path = os.path.join(submission, *parts)
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(path, "wb") as out:
            out.write(base64.b64decode(data))


def _clear_keyrings():
    """Empty the user and user-session keyrings of this user id (the worker's too).

    Keys outlive processes (those of a user id, the grader's whole run, on the host).
    True if they are empty, or if keyctl is denied (the seccomp filter), so no key was made.
    (On an architecture this file has no system call number for, nothing is done.)
    """
    number = SYS_KEYCTL.get(os.uname().machine)
    if number is None:
        return True
    libc = ctypes.CDLL(None, use_errno=True)
    for keyring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
        if libc.syscall(number, KEYCTL_CLEAR, ctypes.c_long(keyring)) != 0:
            if ctypes.get_errno() not in (errno.EPERM, errno.ENOSYS):
                return False
    return True


def _vm_peak(pid):
    """VmPeak of ``pid`` in bytes, from /proc (None if it is gone)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmPeak:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _open_fds():
    try:
        return [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        return list(range(3, 1024))


def children(pid):
    """PIDs whose parent is ``pid`` (from /proc). Also used by the trusted side."""
    found = []
    task_dir = "/proc/%d/task" % pid
    try:
        for tid in os.listdir(task_dir):
            with open("%s/%s/children" % (task_dir, tid)) as f:
                found.extend(int(p) for p in f.read().split())
        return found
    except OSError:  # a kernel without /proc/<pid>/task/<tid>/children: scan /proc
        found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(name))
    return found


def _scan(top):
    """The entries under ``top`` on its filesystem: {path: (is_dir, link target)}.

    Taken when the zygote starts, it is the skeleton bubblewrap made (parents of
    the read-only binds, symlinks): everything else on the scratch filesystem was
    written by a worker and is wiped after it.
    """
    device = os.stat(top).st_dev
    found = {}
    for current, dirs, files in os.walk(top):
        for name in list(dirs):
            path = os.path.join(current, name)
            info = os.lstat(path)
            if info.st_dev != device:
                dirs.remove(name)  # a mount point: not ours to look into
                continue
            if stat.S_ISLNK(info.st_mode):
                found[path] = (False, os.readlink(path))
                dirs.remove(name)
            else:
                found[path] = (True, None)
        for name in files:
            path = os.path.join(current, name)
            info = os.lstat(path)
            found[path] = (False, os.readlink(path) if stat.S_ISLNK(info.st_mode) else None)
    return found


def _wipe(path, device, keep):
    """Delete everything under ``path`` on ``device`` that is not in ``keep``; True if all went."""
    ok = True
    try:
        entries = list(os.scandir(path))
    except OSError:
        return False
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if info.st_dev != device:
            continue  # a read-only bind mount (e.g. the Python installation)
        is_dir = stat.S_ISDIR(info.st_mode)
        if is_dir:
            try:
                os.chmod(entry.path, 0o700 if entry.path not in keep else stat.S_IMODE(info.st_mode) | 0o700)
            except OSError:
                pass  # not ours (bubblewrap's, as root): then a worker could not write there either
            if not _wipe(entry.path, device, keep):
                ok = False
        if entry.path in keep:
            continue
        try:
            if is_dir:
                os.rmdir(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:
            ok = False
    return ok


def _intact(keep):
    """Is the skeleton as it was (a worker may have replaced a symlink)?"""
    for path, (is_dir, target) in keep.items():
        try:
            if is_dir and not os.path.isdir(path) or os.path.islink(path) and os.readlink(path) != target:
                return False
            if not is_dir and not os.path.lexists(path):
                return False
        except OSError:
            return False
    return True


def main(argv):
    args = list(argv)
    if len(args) < 2:
        sys.stderr.write(__doc__)
        return 2
    runtime_path, control_fd = args[0], int(args[1])
    options = dict(zip(args[2::2], args[3::2]))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # numpy first: the interpreter's files may be readable by root only (no student code has
    # run yet, and none runs before root is given up below).
    runtime = _load_runtime(runtime_path)
    if options.get("--ptys") == "hide":
        # As root, before root is given up: the launcher checked it can be done (a forked child of its own),
        # so a failure here ends the zygote rather than serve with the host's ptys.
        why = hide_ptys()
        if why:
            sys.stderr.write("could not hide the host's ptys (%s)\n" % why)
            return 1
    if "--uid" in options:
        # Started as root (inside the sandbox, or without one): give up root for a user id of
        # our own, so RLIMIT_NPROC counts only these processes and nothing of root's is ours.
        gid, uid = int(options.get("--gid", options["--uid"])), int(options["--uid"])
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    if "--seccomp-fd" in options:
        install_filter(int(options["--seccomp-fd"]))
    parent = os.getppid()
    prctl(PR_SET_DUMPABLE, 0)  # no ptrace or /proc/<pid>/mem from the workers
    if os.getpid() != 1:
        prctl(PR_SET_CHILD_SUBREAPER, 1)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            return 1
    root = options.get("--root")
    if root is None:
        import tempfile

        root = tempfile.mkdtemp(prefix="grader-zygote-")
    zygote = Zygote(runtime, control_fd, root, own_uid="--uid" in options)
    try:
        zygote.serve()
    finally:
        if os.getpid() != 1 and "--root" not in options:
            _wipe(root, os.stat(root).st_dev, {})
            try:
                os.rmdir(root)
            except OSError:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
