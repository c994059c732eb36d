"""The sandbox's seccomp filter: system calls a numpy exercise never needs fail with EPERM.

The program is classic BPF, assembled here with ``struct`` (no dependency: neither
libseccomp nor its Python binding is needed, and the same bytes come out on every
machine), and handed to bubblewrap as ``--seccomp FD``. Bubblewrap installs it
(with ``no_new_privs``) just before it starts the zygote, so the zygote and every
worker forked from it run under it, and nothing inside can lift it.

Denied with EPERM, on x86_64 and aarch64:

- new namespaces: ``unshare``, ``setns``, and ``clone`` with any ``CLONE_NEW*`` flag
  (``clone3``, whose flags live in memory a filter cannot read, answers ENOSYS,
  and glibc falls back to ``clone``); ``fork`` and threads stay allowed;
- mounts: ``mount``, ``umount2``, ``pivot_root``, ``chroot`` and the new mount API;
- kernel objects that outlive a worker and would reach the next student: keyrings
  (``add_key``, ``request_key``, ``keyctl``) and POSIX message queues (``mq_*``);
- other processes and the kernel: ``ptrace``, ``process_vm_readv/writev``, ``kcmp``,
  ``pidfd_getfd``, ``perf_event_open``, ``bpf``, ``userfaultfd``, ``io_uring_*``,
  kernel modules, ``kexec_*``, ``reboot``, swap, ``acct``, ``syslog``, quotas,
  ``lookup_dcookie``, ``vhangup``, ``open_by_handle_at``, ``name_to_handle_at``,
  and (x86_64) ``iopl``/``ioperm``.

System calls of another ABI (i386 through ``int 0x80``, whose numbers differ)
kill the process; x32 calls on x86_64 answer ENOSYS. Everything else is allowed.
The kernel caches "always allowed" per system call number, so allowed calls
cost nothing measurable (``benchmarks/bench_seccomp.py``).
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
_NR, _ARCH, _ARG0_LOW = 0, 4, 16  # args[0]'s low half (both architectures are little-endian)

# Classic BPF opcodes (linux/filter.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

# CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET
CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
X32_SYSCALL_BIT = 0x40000000

DENIED = (
    "unshare", "setns",
    "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount",
    "open_tree", "mount_setattr",
    "add_key", "request_key", "keyctl",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "perf_event_open", "bpf",
    "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon",
    "swapoff", "acct", "syslog", "quotactl", "quotactl_fd", "lookup_dcookie", "vhangup", "open_by_handle_at",
    "name_to_handle_at", "iopl", "ioperm",
)


# Memory no per-process limit accounts for (a memfd or a System V segment held unmapped), also
# denied where no cgroup bounds a submission's memory (grader.sandbox.cgroups); numpy and
# the course's code use neither.
UNACCOUNTED = ("memfd_create", "shmget", "shmat")


@dataclass(frozen=True)
class Arch:
    """System call numbers of one architecture (from its kernel headers)."""

    name: str
    audit: int  # AUDIT_ARCH_* of linux/audit.h
    numbers: dict
    x32: bool = False


# name: (x86_64, aarch64), from asm/unistd_64.h and asm-generic/unistd.h; None: no such call.
NUMBERS = {
    "clone": (56, 220), "clone3": (435, 435),
    "unshare": (272, 97), "setns": (308, 268),
    "mount": (165, 40), "umount2": (166, 39), "pivot_root": (155, 41), "chroot": (161, 51), "fsopen": (430, 430),
    "fsconfig": (431, 431), "fsmount": (432, 432), "fspick": (433, 433), "move_mount": (429, 429),
    "open_tree": (428, 428), "mount_setattr": (442, 442),
    "add_key": (248, 217), "request_key": (249, 218), "keyctl": (250, 219),
    "mq_open": (240, 180), "mq_unlink": (241, 181), "mq_timedsend": (242, 182), "mq_timedreceive": (243, 183),
    "mq_notify": (244, 184), "mq_getsetattr": (245, 185),
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271), "kcmp": (312, 272),
    "pidfd_getfd": (438, 438), "perf_event_open": (298, 241), "bpf": (321, 280), "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426), "io_uring_register": (427, 427),
    "init_module": (175, 105), "finit_module": (313, 273), "delete_module": (176, 106), "kexec_load": (246, 104),
    "kexec_file_load": (320, 294), "reboot": (169, 142), "swapon": (167, 224), "swapoff": (168, 225),
    "acct": (163, 89), "syslog": (103, 116), "quotactl": (179, 60), "quotactl_fd": (443, 443),
    "lookup_dcookie": (212, 18), "vhangup": (153, 58), "open_by_handle_at": (304, 265),
    "name_to_handle_at": (303, 264), "iopl": (172, None), "ioperm": (173, None),
    "memfd_create": (319, 279), "shmget": (29, 194), "shmat": (30, 196),
}


def _numbers(column: int) -> dict:
    return {name: numbers[column] for name, numbers in NUMBERS.items() if numbers[column] is not None}


X86_64 = Arch("x86_64", 0xC000003E, _numbers(0), x32=True)
AARCH64 = Arch("aarch64", 0xC00000B7, _numbers(1))

ARCHES = {"x86_64": X86_64, "amd64": X86_64, "aarch64": AARCH64, "arm64": AARCH64}


def native_arch() -> Arch | None:
    """The running machine's architecture, if the filter knows its system call numbers."""
    return ARCHES.get(platform.machine().lower())


def program(arch: Arch, extra: tuple[str, ...] = ()) -> bytes:
    """The filter for ``arch``: an array of ``struct sock_filter``, as ``--seccomp`` reads it.

    ``extra``: more calls denied with EPERM (:data:`UNACCOUNTED` where no cgroup bounds memory).
    """
    denied = sorted({arch.numbers[name] for name in (*DENIED, *extra) if name in arch.numbers})
    # (opcode, k, jump-if-true label, jump-if-false label); None: the next instruction.
    code: list[tuple] = [(_LD_W_ABS, _ARCH, None, None), (_JEQ_K, arch.audit, None, "kill"),
                         (_LD_W_ABS, _NR, None, None)]
    if arch.x32:
        code.append((_JGE_K, X32_SYSCALL_BIT, "enosys", None))
    code += [(_JEQ_K, nr, "eperm", None) for nr in denied]
    code += [(_JEQ_K, arch.numbers["clone3"], "enosys", None), (_JEQ_K, arch.numbers["clone"], None, "allow"),
             (_LD_W_ABS, _ARG0_LOW, None, None), (_JSET_K, CLONE_NEW_FLAGS, "eperm", "allow")]
    labels = {"allow": RET_ALLOW, "eperm": RET_ERRNO | errno.EPERM, "enosys": RET_ERRNO | errno.ENOSYS,
              "kill": RET_KILL_PROCESS}
    where = {label: len(code) + i for i, label in enumerate(labels)}
    code += [(_RET_K, action, None, None) for action in labels.values()]

    def offset(index: int, label: str | None) -> int:
        jump = 0 if label is None else where[label] - index - 1
        if not 0 <= jump <= 255:
            raise ValueError(f"a jump of {jump} instructions does not fit classic BPF")
        return jump

    return b"".join(struct.pack("=HBBI", op, offset(i, jt) if op & 0x07 == 0x05 else 0,
                                offset(i, jf) if op & 0x07 == 0x05 else 0, k)
                    for i, (op, k, jt, jf) in enumerate(code))
