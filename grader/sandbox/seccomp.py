"""The sandbox's seccomp filter: an allowlist; every other system call is refused.

The program is classic BPF, assembled here with ``struct`` (no dependency: neither
libseccomp nor its Python binding is needed, and the same bytes come out on every
machine), and handed to bubblewrap as ``--seccomp FD`` (or installed by the zygote
itself where there is no bubblewrap). It is installed (with ``no_new_privs``) before
the zygote runs, so the zygote and every worker forked from it run under it, and
nothing inside can lift it.

Deny by default: only the calls of :data:`ALLOWED_NUMBERS` are allowed, the ordinary
calls of a Python process and of numpy (files, memory, processes and threads, signals,
time, pipes, polling, sockets by family (below), identity, limits). Any other call answers ENOSYS,
as on a kernel that lacks it (glibc then falls back, e.g. from ``clone3`` to ``clone``),
so a call the list forgot costs a feature, never the filter's purpose. A kernel that
adds a system call adds nothing a submission can use.

Refused with EPERM, whatever the list says (:data:`DENIED`), so that what they are for
is named and tested:

- new namespaces: ``unshare``, ``setns``, and ``clone`` with any ``CLONE_NEW*`` flag
  (``clone3``, whose flags live in memory a filter cannot read, answers ENOSYS);
  ``fork`` and threads stay allowed;
- mounts: ``mount``, ``umount2``, ``pivot_root``, ``chroot`` and the new mount API;
- kernel objects that outlive a worker and would reach the next student: keyrings
  (``add_key``, ``request_key``, ``keyctl``) and POSIX message queues (``mq_*``);
- other processes and the kernel: ``ptrace``, ``process_vm_readv/writev``, ``kcmp``,
  ``pidfd_getfd``, ``perf_event_open``, ``bpf``, ``userfaultfd``, ``io_uring_*``,
  kernel modules, ``kexec_*``, ``reboot``, swap, ``acct``, ``syslog``, quotas,
  ``lookup_dcookie``, ``vhangup``, ``open_by_handle_at``, ``name_to_handle_at``,
  and (x86_64) ``iopl``/``ioperm``;
- where no cgroup accounts for memory, also :data:`UNACCOUNTED` (memfd, System V shm).

Sockets by family (``socket`` and ``socketpair`` read their first argument): only the families the
launcher admits, from :data:`SOCKET_FAMILIES`, each there for a reason written beside it; any other
family answers EAFNOSUPPORT, as on a kernel built without it. Student code needs no network, and the
worker creates no socket (its control socket and pipes are inherited): ``AF_INET`` on the sandbox's
loopback filled 824 MiB of TCP buffers under a 384 MiB bound, ``AF_VSOCK`` reaches the host of a
virtual machine whatever the network namespace, ``AF_NETLINK`` talks to the kernel. bubblewrap needs
none of it from the filter: it applies the filter last, right before it executes the zygote, after
its own sockets (the loopback's ``NETLINK_ROUTE``, its ``AF_UNIX`` socket pairs) have done their work;
where the zygote installs the filter itself, it has no socket to make either.

Disk past ``RLIMIT_FSIZE`` (the worker holds its output capture, a file on the host's disk, open for
writing): the kernel checks that limit where a file's size grows (``write`` and the rest, ``truncate``,
``copy_file_range``, ``splice``, ``fallocate`` with mode 0: EFBIG), not where blocks are reserved past
its end. So ``fallocate`` is admitted with mode 0 only (:data:`FALLOCATE_MODE`: ``posix_fallocate``);
``FALLOC_FL_KEEP_SIZE``, ``ZERO_RANGE``, ``PUNCH_HOLE`` and every other mode answer EOPNOTSUPP, as on
a file system that lacks them (``KEEP_SIZE`` held 2 GiB of the host's /tmp under a 16 MiB limit).
``ioctl`` requests of the XFS-compatible family (:data:`IOCTL_REFUSED_TYPE`, ``'X'``) answer ENOTTY:
the kernel hands ``FS_IOC_RESVSP``, ``FS_IOC_RESVSP64`` and ``FS_IOC_ZERO_RANGE`` to ``fallocate`` with
``KEEP_SIZE`` on any regular file, and file systems keep their own allocation requests there.

System calls of another ABI (i386 through ``int 0x80``, whose numbers differ)
kill the process; x32 calls on x86_64 answer ENOSYS. The kernel caches "always
allowed" per system call number, so allowed calls cost nothing measurable
(``benchmarks/bench_seccomp.py``).
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
_NR, _ARCH, _ARG0_LOW, _ARG1_LOW = 0, 4, 16, 24  # args[n]'s low half (both architectures are little-endian)

# Classic BPF opcodes (linux/filter.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_ALU_AND_K = 0x54

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

# CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET
CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
X32_SYSCALL_BIT = 0x40000000

DENIED = (
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    "add_key",
    "request_key",
    "keyctl",
    "mq_open",
    "mq_unlink",
    "mq_timedsend",
    "mq_timedreceive",
    "mq_notify",
    "mq_getsetattr",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    "perf_event_open",
    "bpf",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "syslog",
    "quotactl",
    "quotactl_fd",
    "lookup_dcookie",
    "vhangup",
    "open_by_handle_at",
    "name_to_handle_at",
    "iopl",
    "ioperm",
)


# Memory no per-process limit accounts for (a memfd or a System V segment held unmapped), also
# denied where no cgroup bounds a submission's memory (grader.sandbox.cgroups); numpy and
# the course's code use neither.
UNACCOUNTED = ("memfd_create", "shmget", "shmat")


# fallocate's one admitted mode: 0 allocates and grows the file, so the kernel checks RLIMIT_FSIZE.
# Every flag (KEEP_SIZE, PUNCH_HOLE, COLLAPSE_RANGE, ZERO_RANGE, INSERT_RANGE, UNSHARE_RANGE, and any
# a kernel adds) answers EOPNOTSUPP.
FALLOCATE_MODE = 0
# The ioctl type (the request's bits 8-15) refused with ENOTTY: 'X', the XFS-compatible space reservation
# requests the kernel turns into fallocate(KEEP_SIZE) (FS_IOC_RESVSP, _RESVSP64, _UNRESVSP, _UNRESVSP64,
# _ZERO_RANGE) and XFS's own; the rest of the family needs CAP_SYS_ADMIN (FIFREEZE, FITRIM) or sets
# allocation hints (FS_IOC_FSSETXATTR). Python and numpy make none of them.
IOCTL_REFUSED_TYPE = ord("X")


# Socket families a worker may be admitted (name: (number, why)); the launcher admits a family only
# where what its reason assumes holds (grader.sandbox.launcher). Linux numbers them alike on every
# architecture (linux/socket.h).
SOCKET_FAMILIES = {
    "AF_UNIX": (
        1,
        "Python's own local plumbing (asyncio's event loop wakes itself through a socket pair; "
        "multiprocessing's duplex pipes and managers): admitted only where it reaches nothing but the "
        "submission (bubblewrap: abstract names in the sandbox's own network namespace, file names in its "
        "private /tmp) and where the kernel charges its buffers to the submission's cgroup (measured: "
        "640 MiB queued in socket pairs end at the bound with a memory limit event; without a cgroup "
        "nothing counts them, 640 MiB held under a 256 MiB limit)",
    ),
}


@dataclass(frozen=True)
class Arch:
    """System call numbers of one architecture (from its kernel headers)."""

    name: str
    audit: int  # AUDIT_ARCH_* of linux/audit.h
    numbers: dict  # of the calls refused by name (and clone, clone3)
    x32: bool = False
    allowed: dict = None  # of the allowlist


# name: (x86_64, aarch64), from asm/unistd_64.h and asm-generic/unistd.h; None: no such call.
NUMBERS = {
    "clone": (56, 220),
    "clone3": (435, 435),
    "unshare": (272, 97),
    "setns": (308, 268),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "move_mount": (429, 429),
    "open_tree": (428, 428),
    "mount_setattr": (442, 442),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "keyctl": (250, 219),
    "mq_open": (240, 180),
    "mq_unlink": (241, 181),
    "mq_timedsend": (242, 182),
    "mq_timedreceive": (243, 183),
    "mq_notify": (244, 184),
    "mq_getsetattr": (245, 185),
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "kcmp": (312, 272),
    "pidfd_getfd": (438, 438),
    "perf_event_open": (298, 241),
    "bpf": (321, 280),
    "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "reboot": (169, 142),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "acct": (163, 89),
    "syslog": (103, 116),
    "quotactl": (179, 60),
    "quotactl_fd": (443, 443),
    "lookup_dcookie": (212, 18),
    "vhangup": (153, 58),
    "open_by_handle_at": (304, 265),
    "name_to_handle_at": (303, 264),
    "iopl": (172, None),
    "ioperm": (173, None),
    "memfd_create": (319, 279),
    "shmget": (29, 194),
    "shmat": (30, 196),
    "socket": (41, 198),
    "socketpair": (53, 199),
}


# The allowlist: name: (x86_64, aarch64), from asm/unistd_64.h and asm-generic/unistd.h.
ALLOWED_NUMBERS = {
    "read": (0, 63),
    "write": (1, 64),
    "readv": (19, 65),
    "writev": (20, 66),
    "pread64": (17, 67),
    "pwrite64": (18, 68),
    "preadv": (295, 69),
    "pwritev": (296, 70),
    "preadv2": (327, 286),
    "pwritev2": (328, 287),
    "open": (2, None),
    "openat": (257, 56),
    "close": (3, 57),
    "close_range": (436, 436),
    "lseek": (8, 62),
    "fstat": (5, 80),
    "stat": (4, None),
    "lstat": (6, None),
    "newfstatat": (262, 79),
    "statx": (332, 291),
    "access": (21, None),
    "faccessat": (269, 48),
    "faccessat2": (439, 439),
    "readlink": (89, None),
    "readlinkat": (267, 78),
    "getdents64": (217, 61),
    "getdents": (78, None),
    "mkdir": (83, None),
    "mkdirat": (258, 34),
    "rmdir": (84, None),
    "unlink": (87, None),
    "unlinkat": (263, 35),
    "rename": (82, None),
    "renameat": (264, 38),
    "renameat2": (316, 276),
    "link": (86, None),
    "linkat": (265, 37),
    "symlink": (88, None),
    "symlinkat": (266, 36),
    "chmod": (90, None),
    "fchmod": (91, 52),
    "fchmodat": (268, 53),
    "chown": (92, None),
    "fchown": (93, 55),
    "fchownat": (260, 54),
    "lchown": (94, None),
    "truncate": (76, 45),
    "ftruncate": (77, 46),
    "fsync": (74, 82),
    "fdatasync": (75, 83),
    "fallocate": (285, 47),
    "fadvise64": (221, 223),
    "utimensat": (280, 88),
    "umask": (95, 166),
    "chdir": (80, 49),
    "fchdir": (81, 50),
    "getcwd": (79, 17),
    "dup": (32, 23),
    "dup2": (33, None),
    "dup3": (292, 24),
    "fcntl": (72, 25),
    "flock": (73, 32),
    "ioctl": (16, 29),
    "pipe": (22, None),
    "pipe2": (293, 59),
    "sendfile": (40, 71),
    "copy_file_range": (326, 285),
    "splice": (275, 76),
    "tee": (276, 77),
    "statfs": (137, 43),
    "fstatfs": (138, 44),
    "creat": (85, None),
    "getxattr": (191, 8),
    "lgetxattr": (192, 9),
    "fgetxattr": (193, 10),
    "listxattr": (194, 11),
    "llistxattr": (195, 12),
    "flistxattr": (196, 13),
    "brk": (12, 214),
    "mmap": (9, 222),
    "munmap": (11, 215),
    "mprotect": (10, 226),
    "mremap": (25, 216),
    "madvise": (28, 233),
    "msync": (26, 227),
    "mincore": (27, 232),
    "mbind": (237, 235),
    "get_mempolicy": (239, 236),
    "membarrier": (324, 283),
    "fork": (57, None),
    "vfork": (58, None),
    "execve": (59, 221),
    "exit": (60, 93),
    "exit_group": (231, 94),
    "wait4": (61, 260),
    "waitid": (247, 95),
    "kill": (62, 129),
    "tgkill": (234, 131),
    "tkill": (200, 130),
    "getpid": (39, 172),
    "getppid": (110, 173),
    "gettid": (186, 178),
    "getpgid": (121, 155),
    "setpgid": (109, 154),
    "getpgrp": (111, None),
    "getsid": (124, 156),
    "setsid": (112, 157),
    "set_tid_address": (218, 96),
    "set_robust_list": (273, 99),
    "get_robust_list": (274, 100),
    "rseq": (334, 293),
    "arch_prctl": (158, None),
    "prctl": (157, 167),
    "prlimit64": (302, 261),
    "getrlimit": (97, 163),
    "setrlimit": (160, 164),
    "getrusage": (98, 165),
    "times": (100, 153),
    "sched_yield": (24, 124),
    "sched_getaffinity": (204, 123),
    "sched_setaffinity": (203, 122),
    "sched_getparam": (143, 121),
    "sched_getscheduler": (145, 120),
    "sched_get_priority_max": (146, 125),
    "sched_get_priority_min": (147, 126),
    "getpriority": (140, 141),
    "setpriority": (141, 140),
    "uname": (63, 160),
    "sysinfo": (99, 179),
    "getrandom": (318, 278),
    "setresuid": (117, 147),
    "setresgid": (119, 149),
    "setuid": (105, 146),
    "setgid": (106, 144),
    "setgroups": (116, 159),
    "getuid": (102, 174),
    "geteuid": (107, 175),
    "getgid": (104, 176),
    "getegid": (108, 177),
    "getresuid": (118, 148),
    "getresgid": (120, 150),
    "getgroups": (115, 158),
    "rt_sigaction": (13, 134),
    "rt_sigprocmask": (14, 135),
    "rt_sigreturn": (15, 139),
    "rt_sigsuspend": (130, 133),
    "rt_sigpending": (127, 136),
    "rt_sigtimedwait": (128, 137),
    "sigaltstack": (131, 132),
    "pause": (34, None),
    "alarm": (37, None),
    "setitimer": (38, 103),
    "getitimer": (36, 102),
    "timer_create": (222, 107),
    "timer_settime": (223, 110),
    "timer_gettime": (224, 108),
    "timer_getoverrun": (225, 109),
    "timer_delete": (226, 111),
    "signalfd": (282, None),
    "signalfd4": (289, 74),
    "clock_gettime": (228, 113),
    "clock_getres": (229, 114),
    "clock_nanosleep": (230, 115),
    "nanosleep": (35, 101),
    "gettimeofday": (96, 169),
    "time": (201, None),
    "restart_syscall": (219, 128),
    "futex": (202, 98),
    "select": (23, None),
    "pselect6": (270, 72),
    "poll": (7, None),
    "ppoll": (271, 73),
    "epoll_create": (213, None),
    "epoll_create1": (291, 20),
    "epoll_ctl": (233, 21),
    "epoll_wait": (232, None),
    "epoll_pwait": (281, 22),
    "eventfd": (284, None),
    "eventfd2": (290, 19),
    "timerfd_create": (283, 85),
    "timerfd_settime": (286, 86),
    "timerfd_gettime": (287, 87),
    "socket": (41, 198),
    "socketpair": (53, 199),
    "bind": (49, 200),
    "listen": (50, 201),
    "accept": (43, 202),
    "accept4": (288, 242),
    "connect": (42, 203),
    "getsockname": (51, 204),
    "getpeername": (52, 205),
    "sendto": (44, 206),
    "recvfrom": (45, 207),
    "sendmsg": (46, 211),
    "recvmsg": (47, 212),
    "sendmmsg": (307, 269),
    "recvmmsg": (299, 243),
    "shutdown": (48, 210),
    "setsockopt": (54, 208),
    "getsockopt": (55, 209),
    "shmget": (29, 194),
    "shmat": (30, 196),
    "shmdt": (67, 197),
    "shmctl": (31, 195),
    "semget": (64, 190),
    "semop": (65, 193),
    "semtimedop": (220, 192),
    "semctl": (66, 191),
    "msgget": (68, 186),
    "msgsnd": (69, 189),
    "msgrcv": (70, 188),
    "msgctl": (71, 187),
    "memfd_create": (319, 279),
}


def _numbers(column: int, table: dict = NUMBERS) -> dict:
    return {name: numbers[column] for name, numbers in table.items() if numbers[column] is not None}


X86_64 = Arch("x86_64", 0xC000003E, _numbers(0), x32=True, allowed=_numbers(0, ALLOWED_NUMBERS))
AARCH64 = Arch("aarch64", 0xC00000B7, _numbers(1), allowed=_numbers(1, ALLOWED_NUMBERS))

ARCHES = {"x86_64": X86_64, "amd64": X86_64, "aarch64": AARCH64, "arm64": AARCH64}


def native_arch() -> Arch | None:
    """The running machine's architecture, if the filter knows its system call numbers."""
    return ARCHES.get(platform.machine().lower())


_JA = 0x05


def program(arch: Arch, extra: tuple[str, ...] = (), families: tuple[str, ...] = ()) -> bytes:
    """The filter for ``arch``: an array of ``struct sock_filter``, as ``--seccomp`` reads it.

    ``extra``: more calls refused with EPERM (:data:`UNACCOUNTED` where no cgroup bounds memory).
    ``families``: the socket families admitted (names of :data:`SOCKET_FAMILIES`); none by default.
    Layout (jumps only go forward, at most 255 instructions far)::

        arch? else KILL; x32? ENOSYS; refused by name? EPERM; clone3? ENOSYS;
        clone? (CLONE_NEW* ? EPERM : ALLOW);
        socket, socketpair? (an admitted family ? ALLOW : EAFNOSUPPORT);
        fallocate? (mode 0 ? ALLOW : EOPNOTSUPP); ioctl? (type 'X' ? ENOTTY : ALLOW);
        in the allowlist? ALLOW; else ENOSYS
    """
    unknown = set(families) - set(SOCKET_FAMILIES)
    if unknown:
        raise ValueError(f"no such socket family on the list: {', '.join(sorted(unknown))}")
    denied = sorted({arch.numbers[name] for name in (*DENIED, *extra) if name in arch.numbers})
    special = {arch.numbers[name] for name in ("clone", "clone3", "socket", "socketpair")}
    special |= {arch.allowed[name] for name in ("fallocate", "ioctl")}
    allowed = sorted(set(arch.allowed.values()) - set(denied) - special)
    admitted = sorted({SOCKET_FAMILIES[name][0] for name in families})
    # (opcode, k, jump-if-true label, jump-if-false label); None: the next instruction. ("label", name)
    # marks where a label points.
    code: list[tuple] = [
        (_LD_W_ABS, _ARCH, None, None),
        (_JEQ_K, arch.audit, "arch", None),
        (_RET_K, RET_KILL_PROCESS, None, None),
        ("label", "arch"),
        (_LD_W_ABS, _NR, None, None),
    ]
    if arch.x32:
        code += [
            (_JGE_K, X32_SYSCALL_BIT, None, "native"),
            (_RET_K, RET_ERRNO | errno.ENOSYS, None, None),
            ("label", "native"),
        ]
    code += [(_JEQ_K, nr, "eperm", None) for nr in denied]
    code += [
        (_JEQ_K, arch.numbers["clone3"], "enosys", None),
        (_JEQ_K, arch.numbers["clone"], "clone", None),
        (_JEQ_K, arch.numbers["socket"], "socket", None),
        (_JEQ_K, arch.numbers["socketpair"], "socket", None),
        (_JEQ_K, arch.allowed["fallocate"], "fallocate", None),
        (_JEQ_K, arch.allowed["ioctl"], "ioctl", None),
        (_JA, "allowlist", None, None),
        ("label", "clone"),
        (_LD_W_ABS, _ARG0_LOW, None, None),
        (_JSET_K, CLONE_NEW_FLAGS, "eperm", "allow1"),
        ("label", "socket"),
        (_LD_W_ABS, _ARG0_LOW, None, None),  # the family (an int: the kernel reads the low half only)
        *[(_JEQ_K, family, "allow1", None) for family in admitted],
        (_RET_K, RET_ERRNO | errno.EAFNOSUPPORT, None, None),
        ("label", "fallocate"),
        (_LD_W_ABS, _ARG1_LOW, None, None),  # the mode (an int)
        (_JEQ_K, FALLOCATE_MODE, "allow1", None),
        (_RET_K, RET_ERRNO | errno.EOPNOTSUPP, None, None),
        ("label", "ioctl"),
        (_LD_W_ABS, _ARG1_LOW, None, None),  # the request (an unsigned int)
        (_ALU_AND_K, 0xFF00, None, None),  # its type
        (_JEQ_K, IOCTL_REFUSED_TYPE << 8, None, "allow1"),
        (_RET_K, RET_ERRNO | errno.ENOTTY, None, None),
        ("label", "eperm"),
        (_RET_K, RET_ERRNO | errno.EPERM, None, None),
        ("label", "enosys"),
        (_RET_K, RET_ERRNO | errno.ENOSYS, None, None),
        ("label", "allow1"),
        (_RET_K, RET_ALLOW, None, None),
        ("label", "allowlist"),
    ]
    code += [(_JEQ_K, nr, "allow", None) for nr in allowed]
    code += [(_RET_K, RET_ERRNO | errno.ENOSYS, None, None), ("label", "allow"), (_RET_K, RET_ALLOW, None, None)]
    where, instructions = {}, []
    for entry in code:
        if entry[0] == "label":
            where[entry[1]] = len(instructions)
        else:
            instructions.append(entry)

    def offset(index: int, label: str | None) -> int:
        jump = 0 if label is None else where[label] - index - 1
        if not 0 <= jump <= 255:
            raise ValueError(f"a jump of {jump} instructions does not fit classic BPF")
        return jump

    out = []
    for i, (op, k, jt, jf) in enumerate(instructions):
        if op == _JA:
            out.append(struct.pack("=HBBI", op, 0, 0, where[k] - i - 1))
        elif op & 0x07 == 0x05:
            out.append(struct.pack("=HBBI", op, offset(i, jt), offset(i, jf), k))
        else:
            out.append(struct.pack("=HBBI", op, 0, 0, k))
    return b"".join(out)
