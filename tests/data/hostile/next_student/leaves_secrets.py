"""Leaves a secret in every kernel object a process can share, for the next student to find.

Not a submission of the toy course (tests/sandbox/test_isolation.py calls its functions
directly): ``leave(secret)`` stores the secret, ``find()`` looks for it from another
worker of the same grading process. Keyrings, POSIX message queues, POSIX shared
memory, files in the scratch space, an abstract Unix socket held by a detached child.
(System V objects make the zygote replace itself: tests/sandbox/test_sandbox.py.)
"""

import ctypes
import os
import socket
import time

LIBC = ctypes.CDLL(None, use_errno=True)
# add_key, keyctl, request_key; x86_64 and aarch64.
SYSCALLS = {"x86_64": (248, 250, 249), "aarch64": (217, 219, 218)}[os.uname().machine]
USER_KEYRING, USER_SESSION_KEYRING = -4, -5
KEYCTL_READ = 11
SOCKET = "\0grader-next-student"
FILES = ("/dev/shm/grader-secret", "/tmp/grader-secret", os.path.expanduser("~/grader-secret"))


def _error(what):
    return "%s failed: %s" % (what, os.strerror(ctypes.get_errno()))


def _mq_open(flags, mode=0o600):
    LIBC.mq_open.restype = ctypes.c_int
    return LIBC.mq_open(b"/grader-secret", ctypes.c_int(flags), ctypes.c_uint(mode), None)


def leave(secret):
    data = secret.encode()
    done = {}
    for name, keyring in (("user keyring", USER_KEYRING), ("user session keyring", USER_SESSION_KEYRING)):
        key = LIBC.syscall(SYSCALLS[0], b"user", b"grader-secret", data, len(data), ctypes.c_long(keyring))
        done[name] = "stored" if key >= 0 else _error("add_key")
    queue = _mq_open(os.O_CREAT | os.O_WRONLY)
    if queue >= 0:
        done["message queue"] = "stored" if LIBC.mq_send(queue, data, len(data), 0) == 0 else _error("mq_send")
    else:
        done["message queue"] = _error("mq_open")
    for path in FILES:
        try:
            with open(path, "w") as f:
                f.write(secret)
            done[path] = "stored"
        except OSError as exc:
            done[path] = str(exc)
    try:
        server = socket.socket(socket.AF_UNIX)  # refused where the sandbox admits no socket
        server.bind(SOCKET)
        server.listen(4)
    except OSError as exc:
        done["abstract socket"] = str(exc)
        return done
    if os.fork() == 0:  # a detached child serving the secret on an abstract socket
        os.setsid()
        while True:
            conn, _ = server.accept()
            conn.sendall(data)
            conn.close()
    server.close()
    time.sleep(0.2)
    done["abstract socket"] = "stored"
    return done


def find():
    found = {}
    buffer = ctypes.create_string_buffer(8192)  # a message queue's default message size
    for name, keyring in (("user keyring", USER_KEYRING), ("user session keyring", USER_SESSION_KEYRING)):
        key = LIBC.syscall(SYSCALLS[2], b"user", b"grader-secret", None, ctypes.c_long(keyring))
        if key < 0:
            found[name] = _error("request_key")
        else:
            n = LIBC.syscall(SYSCALLS[1], KEYCTL_READ, key, buffer, len(buffer))
            found[name] = buffer.raw[:n].decode() if n >= 0 else _error("keyctl")
    queue = _mq_open(os.O_RDONLY | os.O_NONBLOCK, 0)
    if queue >= 0:
        n = LIBC.mq_receive(queue, buffer, len(buffer), None)
        found["message queue"] = buffer.raw[:n].decode() if n >= 0 else _error("mq_receive")
    else:
        found["message queue"] = _error("mq_open")
    for path in FILES:
        try:
            with open(path) as f:
                found[path] = f.read()
        except OSError as exc:
            found[path] = str(exc)
    try:
        client = socket.socket(socket.AF_UNIX)
        client.connect(SOCKET)
        found["abstract socket"] = client.recv(4096).decode()
    except OSError as exc:
        found["abstract socket"] = str(exc)
    return found
