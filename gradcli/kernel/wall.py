"""The operating system's wall around an evaluator process (SPEC §7): what the process gives up
after its imports and before it reads a program.

- rlimits: address space (the memory limit), core files 0, file size 0, open files, threads
  (RLIMIT_NPROC, counted in a user namespace of the evaluator's own: count_tasks_apart), and
  CPU seconds when a timeout is set;
- no_new_privs (prctl), which Landlock and an unprivileged seccomp filter require;
- the user's working directory: it works from / (_leave_directory);
- Landlock (Linux >= 5.13): read-only access to the Python installation, the installed
  packages, gradcli's own files and cache and the system's shared libraries; nothing may be
  written, made, removed or executed anywhere; from ABI 4 no TCP bind/connect, from ABI 6 no
  signal to a process outside the evaluator and no abstract UNIX socket;
- seccomp-bpf through the system's libseccomp (six of its calls bound with ctypes below): no
  exec, no new process (threads stay allowed), no socket, no ptrace or reading another
  process's memory, no signal to another process, no writing open(), no mount, namespace, BPF,
  io_uring, keyring or module system calls.  A refused call fails with EPERM, so a program
  meets a one-line PermissionError rather than a dead process.

Where the machine lacks a piece (an older kernel, no libseccomp), the wall goes up without it
and `missing()` names it: `gradcli --version` and README say so."""

import ctypes
import errno
import os
import resource
import sys

# ---------------------------------------------------------------------- Landlock (uapi)

_SYS_LANDLOCK_CREATE_RULESET = 444  # the same number on every architecture
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_PDEATHSIG = 1

# access rights by the ABI that introduced them (linux/landlock.h)
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_ABI1 = (1 << 13) - 1          # EXECUTE .. MAKE_SYM
_FS_REFER, _FS_TRUNCATE, _FS_IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(number, *args):
    result = _libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def landlock_abi():
    """The Landlock ABI the running kernel offers (0: none, or disabled at boot)."""
    try:
        return _syscall(_SYS_LANDLOCK_CREATE_RULESET, None, ctypes.c_size_t(0),
                        ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except OSError:
        return 0


def readable_paths():
    """What an evaluator may read: the Python installation (standard library, extension
    modules), the environment's packages (NumPy, lark, rich...), gradcli's own files (an
    editable install's source tree too), gradcli's cache, and the system's shared libraries
    that a late extension import may load."""
    import gradcli
    from ..lang.parser import cache_dir, grammar_path
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.abspath(gradcli.__file__)), os.path.dirname(grammar_path()),
             "/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib"}
    paths.update(p for p in sys.path if p and os.path.isabs(p) and "site-packages" in p)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    paths.add(os.path.join(cache, "gradcli"))
    if cache_dir() is None:
        paths.discard(os.path.join(cache, "gradcli"))
    return sorted(p for p in paths if p and os.path.isdir(p))


def _landlock(abi):
    """Restrict the file system to reading readable_paths() (and /dev/urandom); with ABI 4,
    TCP too; with ABI 6, signals and abstract sockets to this domain."""
    fs = _FS_ABI1 | (_FS_REFER if abi >= 2 else 0) | (_FS_TRUNCATE if abi >= 3 else 0) | \
        (_FS_IOCTL_DEV if abi >= 5 else 0)
    net = (_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0
    scoped = (_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL) if abi >= 6 else 0
    attr = _RulesetAttr(fs, net, scoped)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = _syscall(_SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                       ctypes.c_uint32(0))
    try:
        targets = [(p, _FS_READ_FILE | _FS_READ_DIR) for p in readable_paths()]
        targets.append(("/dev/urandom", _FS_READ_FILE))
        for path, access in targets:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if not os.path.isdir(path):
                    access &= _FS_READ_FILE  # a file takes file rights only
                rule = _PathBeneathAttr(access, fd)
                _syscall(_SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset),
                         ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0))
            finally:
                os.close(fd)
        _syscall(_SYS_LANDLOCK_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)


# ---------------------------------------------------------------------- seccomp

# refused outright: processes and exec, sockets, other processes' memory, the system's state
_REFUSED = (
    "execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev",
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    "kill", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open",
    "pidfd_send_signal", "pidfd_getfd", "mount", "umount2", "pivot_root", "chroot", "setns",
    "unshare", "move_mount", "open_tree", "fsopen", "fsmount", "fspick", "mount_setattr",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "keyctl", "add_key", "request_key", "init_module", "finit_module",
    "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "acct",
    "settimeofday", "clock_settime", "adjtimex", "clock_adjtime", "sethostname",
    "setdomainname", "quotactl", "name_to_handle_at", "open_by_handle_at", "lookup_dcookie",
    "iopl", "ioperm", "personality", "mknod", "mknodat", "link", "linkat", "symlink",
    "symlinkat", "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat",
    "rmdir", "chmod", "fchmodat", "chown", "lchown", "fchownat", "truncate", "creat",
    "utime", "utimes", "utimensat", "futimesat", "setxattr", "lsetxattr", "removexattr",
    "lremovexattr", "memfd_secret", "seccomp",
    # metadata of a file it may read (Landlock governs opening, not these)
    "fchmod", "fchmodat2", "fchown", "fsetxattr", "fremovexattr", "flock",
    # System V and POSIX IPC: objects that outlive the evaluator, and other processes' ones
    "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl", "semget",
    "semop", "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend",
    "mq_timedreceive", "mq_notify", "mq_getsetattr",
    # the whole machine's: file access notification, the kernel log, the terminal, privileges
    "fanotify_init", "fanotify_mark", "syslog", "vhangup", "capset", "setuid", "setgid",
    "setreuid", "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid", "setgroups",
    "ioprio_set", "migrate_pages", "move_pages", "kcmp", "process_madvise", "process_mrelease",
    "quotactl_fd", "uselib", "nfsservctl",
    # another directory's events: inotify watches what Landlock refuses to list or open
    "inotify_init", "inotify_init1", "inotify_add_watch",
    # Linux AIO: its contexts are counted for the whole machine (fs.aio-max-nr), so one
    # io_setup takes them all from every other process (neither Python nor NumPy uses AIO)
    "io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents", "io_pgetevents",
    # writing back every file system's dirty pages (the machine's disks, in a loop)
    "sync", "syncfs",
    # process groups and sessions: the evaluator has its own group (set before the filter) and
    # joins no other, where the terminal's and the shell's signals for the user's job go
    "setpgid", "setsid",
    # extended attributes by path (Landlock governs opening, not these: a file outside the
    # installation tells its download's address) and the mount table
    "getxattr", "lgetxattr", "listxattr", "llistxattr", "getxattrat", "listxattrat",
    "setxattrat", "removexattrat", "file_getattr", "file_setattr", "statmount", "listmount",
    "open_tree_attr",
)
# calls newer than the system's libseccomp may know (2.5.4 stops at Linux 6.6): since Linux 5.1
# a new call has one number on every architecture whose numbers start at 0 (not MIPS, alpha)
_UNIFIED_NUMBERS = {"statmount": 457, "listmount": 458, "setxattrat": 463, "getxattrat": 464,
                    "listxattrat": 465, "removexattrat": 466, "open_tree_attr": 467,
                    "file_getattr": 468, "file_setattr": 469}
_UNIFIED_ARCHES = {0xC000003E, 0x40000003, 0xC00000B7, 0x40000028, 0xC00000F3, 0xC0000015,
                   0x80000016, 0xC0000102}  # x86_64, x86, aarch64, arm, riscv64, ppc64le,
#                                              s390x, loongarch64 (AUDIT_ARCH_*)
# calls that name a process: refused unless it is 0 (this process or thread itself)
_OWN_PROCESS_ONLY = ("prlimit64", "sched_setscheduler", "sched_setparam", "sched_setattr",
                     "sched_setaffinity")
_FCNTL_LOCKS = (5, 6, 7, 36, 37, 38, 1024, 1026)  # F_GETLK.., F_OFD_*, F_SETLEASE, F_NOTIFY
# F_SETOWN, F_SETSIG, F_SETOWN_EX: a descriptor's SIGIO (any signal, SIGKILL too) sent to another
# process or process group when it becomes readable
_FCNTL_OWNER = (8, 10, 15)
# F_SETPIPE_SZ: pipe buffers are counted per user (fs.pipe-user-pages-soft), outside RLIMIT_AS;
# grown to 1 MB each, an evaluator's pipes take the user's whole quota from every other process
_FCNTL_PIPE_SIZE = (1031,)
# ioctl requests refused on any descriptor: typing into a terminal (TIOCSTI, TIOCLINUX), taking
# its foreground group, controlling or console (TIOCSPGRP, TIOCSCTTY, TIOCCONS), and a
# descriptor's SIGIO owner (FIOSETOWN, SIOCSPGRP, as F_SETOWN)
_IOCTL_REFUSED = (0x5412, 0x541C, 0x5410, 0x540E, 0x541D, 0x8901, 0x8902,
                  # a readable file's inode flags, version and fsxattr (FS_IOC_SETFLAGS and its
                  # 32-bit form, FS_IOC_SETVERSION likewise, FS_IOC_FSSETXATTR), as fchmod
                  0x40086602, 0x40046602, 0x40087602, 0x40047602, 0x401C5820)
_CLONE_THREAD = 0x00010000


class _ArgCompare(ctypes.Structure):  # struct scmp_arg_cmp (seccomp.h)
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


_ALLOW, _NE, _EQ, _MASKED_EQ = 0x7FFF0000, 1, 4, 7


def _int_is(arg, value):
    """The compare `argument == value` for an argument the kernel reads as a 32-bit int (a
    prctl option, an ioctl request, an fcntl command): its low 32 bits only.  An _EQ compare
    sees all 64 bits of the register, so 0xffffffff00000001 would pass a rule for 1 that the
    kernel then carries out as 1.  (_NE, which refuses whatever differs in any bit, is sound
    as it is.)"""
    return (arg, _MASKED_EQ, 0xFFFFFFFF, value & 0xFFFFFFFF)


def _errno_action(code):
    return 0x00050000 | (code & 0xFFFF)


def _libseccomp():
    """The system's libseccomp (None when it is not installed).  Six of its calls are all
    the filter needs, bound here through ctypes: a binding package's import (ctypes.util,
    which imports tempfile, and `ldconfig -p` run in a new process to find the library) would
    cost every one-shot command several milliseconds."""
    try:
        lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.POINTER(_ArgCompare)]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_arch_native.restype = ctypes.c_uint32
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.restype = None
    return lib


def seccomp_available():
    return _libseccomp() is not None


class _Filter:
    """A libseccomp filter that allows every call but those given a rule."""

    def __init__(self, lib):
        self.lib = lib
        self.context = lib.seccomp_init(_ALLOW)
        if not self.context:
            raise OSError("seccomp_init failed")

    def add(self, action, name, *compares):
        """A rule: `action` when every (argument, operator, a, b) compare holds.  A call this
        architecture does not have is skipped."""
        number = self.lib.seccomp_syscall_resolve_name(name.encode())
        if number == -1 and name in _UNIFIED_NUMBERS and \
                self.lib.seccomp_arch_native() in _UNIFIED_ARCHES:
            number = _UNIFIED_NUMBERS[name]
        if number == -1:  # (__NR_SCMP_ERROR)
            return
        array = (_ArgCompare * max(len(compares), 1))(*[_ArgCompare(*c) for c in compares])
        result = self.lib.seccomp_rule_add_array(self.context, action, number, len(compares),
                                                 array)
        if result < 0:
            raise OSError(-result, f"seccomp rule for {name}: {os.strerror(-result)}")

    def load(self):
        try:
            result = self.lib.seccomp_load(self.context)
            if result < 0:
                raise OSError(-result, f"seccomp_load: {os.strerror(-result)}")
        finally:
            self.lib.seccomp_release(self.context)


def _seccomp(lib):
    refuse = _errno_action(errno.EPERM)
    f = _Filter(lib)
    for name in _REFUSED:
        f.add(refuse, name)
    # a new thread is allowed (BLAS, Python's threads); a new process is not.  clone3 hides its
    # flags in memory a filter cannot read: ENOSYS makes the C library fall back to clone.
    f.add(refuse, "clone", (0, _MASKED_EQ, _CLONE_THREAD, 0))
    f.add(_errno_action(errno.ENOSYS), "clone3")
    # signals: to this process only (raise(), Python's own alarm)
    f.add(refuse, "tgkill", (0, _NE, os.getpid(), 0))
    # limits and scheduling of this process only; no leaving with the frontend gone.  (_NE
    # compares all 64 bits: only 0 itself passes, whatever the high bits)
    for name in _OWN_PROCESS_ONLY:
        f.add(refuse, name, (0, _NE, 0, 0))
    # setpriority(PRIO_PROCESS, 0) only: with `who` 0, PRIO_PGRP is the caller's whole process
    # group and PRIO_USER every process of its user
    f.add(refuse, "setpriority", (0, _NE, 0, 0))
    f.add(refuse, "setpriority", (1, _NE, 0, 0))
    f.add(refuse, "prctl", _int_is(0, _PR_SET_PDEATHSIG))
    # locks on a file it may read would block other processes; an owner gets signals
    for command in _FCNTL_LOCKS + _FCNTL_OWNER + _FCNTL_PIPE_SIZE:
        f.add(refuse, "fcntl", _int_is(1, command))
    # open() for writing or creating (Landlock refuses it too; this holds where Landlock is off)
    tmpfile = getattr(os, "O_TMPFILE", 0) & ~os.O_DIRECTORY
    for flag in (os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_TRUNC, os.O_APPEND, tmpfile):
        if flag:
            f.add(refuse, "openat", (2, _MASKED_EQ, flag, flag))
            f.add(refuse, "open", (1, _MASKED_EQ, flag, flag))
    f.add(refuse, "openat2")  # its flags are in memory too; the C library uses openat
    # the terminal: no typing into it, even through an inherited descriptor; no SIGIO owner
    for request in _IOCTL_REFUSED:
        f.add(refuse, "ioctl", _int_is(1, request))
    f.load()


# ---------------------------------------------------------------------- capabilities

_PR_CAPBSET_DROP, _PR_SET_SECUREBITS, _PR_CAP_AMBIENT = 24, 28, 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_SECURE_NOROOT_AND_LOCKS = 0b11101111  # NOROOT, NO_SETUID_FIXUP, NO_CAP_AMBIENT_RAISE, locked
_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _drop_capabilities():
    """Give up every capability (a gradcli run as root keeps none in its evaluator: root's
    capabilities would reach past Landlock, e.g. fanotify on every file), for good.  A user's
    evaluator holds only the capabilities of its own user namespace (count_tasks_apart): it
    empties its sets without using one (its bounding set and securebits would matter at an
    exec, which the wall refuses), as a check of a capability in a user's new namespace is an
    audited denial where AppArmor restricts them (Ubuntu 24.04)."""
    empty = (_CapData * 2)()
    if _tasks_apart and not _was_root:
        _libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
        _libc.capset(ctypes.byref(_CapHeader(_CAPABILITY_VERSION_3, 0)), empty)
        return
    _libc.prctl(_PR_SET_SECUREBITS, _SECURE_NOROOT_AND_LOCKS, 0, 0, 0)  # (needs CAP_SETPCAP)
    for capability in range(64):
        if _libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 and \
                ctypes.get_errno() == errno.EINVAL:
            break
    _libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    _libc.capset(ctypes.byref(_CapHeader(_CAPABILITY_VERSION_3, 0)), empty)


# ---------------------------------------------------------------------- rlimits

def _limit(kind, value):
    try:
        soft, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(kind, (value, value))
    except (ValueError, OSError, OverflowError):
        pass


def _address_space():
    """The process's mapped size now, in bytes (what its imports reserved)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


SIGNALS_PENDING = 32  # RLIMIT_SIGPENDING: signals queued for the evaluator at once


def _rlimits(memory, cpu_seconds):
    if memory:
        _limit(resource.RLIMIT_AS, _address_space() + memory)
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_FSIZE, 0)
    _limit(resource.RLIMIT_NOFILE, 256)
    # queued signals are counted for the whole user (and a child user namespace's in its
    # parent's): unbounded, an evaluator's own take every other process's sigqueue and
    # timer_create.  Python queues none (the alarm and Ctrl-C are not counted)
    if hasattr(resource, "RLIMIT_SIGPENDING"):
        _limit(resource.RLIMIT_SIGPENDING, SIGNALS_PENDING)
    if _tasks_apart:
        _limit(resource.RLIMIT_NPROC, _tasks() + TASK_HEADROOM)
    limit_cpu(cpu_seconds)


# ---------------------------------------------------------------------- tasks

TASK_HEADROOM = 256  # threads an evaluator may start after its wall (BLAS's, Python's)
_CLONE_NEWUSER = 0x10000000
_OVERFLOW_UID = 65534
_tasks_apart = False  # count_tasks_apart() succeeded: RLIMIT_NPROC counts this process only
_was_root = False  # (and the process was root's before it)


def _tasks():
    """How many threads this process has now."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def count_tasks_apart():
    """Make RLIMIT_NPROC count this process's own threads only, so that the wall can bound
    them (each thread takes a process id: some tens of thousands of small-stack threads use
    up the machine's, and then no process of any user can start).  The limit counts a user's
    tasks, all of them, and not root's at all; since Linux 5.14 it counts them per user
    namespace too.  So the evaluator enters a user namespace of its own (no capability
    outside it; the wall drops those inside it), and an evaluator of root's gives up its real
    uid for the overflow uid first (its effective and file-system uid stay 0: it reads what
    it read).  Must be called while the process has one thread (right after fork): the
    kernel refuses a new user namespace to a threaded process.  False where it cannot be
    done (not Linux, before 5.14, user namespaces off or refused by a container's filter):
    the wall then goes up without the bound."""
    global _tasks_apart, _was_root
    if not sys.platform.startswith("linux"):
        return False
    try:
        if tuple(int(n) for n in os.uname().release.split("-")[0].split(".")[:2]) < (5, 14):
            return False
    except ValueError:
        return False
    root = os.getuid() == 0
    try:
        if root:
            os.setresuid(_OVERFLOW_UID, -1, -1)
    except OSError:
        return False
    if _libc.unshare(ctypes.c_int(_CLONE_NEWUSER)) != 0:
        if root:
            try:
                os.setresuid(0, -1, -1)
            except OSError:
                pass
        return False
    _tasks_apart, _was_root = True, root
    return True


def limit_cpu(seconds):
    """RLIMIT_CPU: the evaluator is killed (SIGXCPU) after `seconds` of CPU time, a backstop
    of --timeout for a program that holds the GIL.  Lowering a limit needs no privilege, so a
    walled evaluator can still take this one on (a prestarted one learns its timeout last)."""
    if seconds and seconds < 2 ** 40:  # (a longer one is no limit at all)
        _limit(resource.RLIMIT_CPU, int(seconds) + 1)


def die_with_frontend():
    """The evaluator ends (SIGKILL) when its frontend does (raise_wall sets this too; an
    evaluator started before its imports sets it first)."""
    if sys.platform.startswith("linux"):
        _libc.prctl(_PR_SET_PDEATHSIG, 9, 0, 0, 0)


# ---------------------------------------------------------------------- the wall

def missing():
    """The pieces of the wall this machine cannot raise, as short phrases ([] when none)."""
    found = []
    if not sys.platform.startswith("linux"):
        return ["Landlock (not Linux)", "seccomp (not Linux)"]
    abi = landlock_abi()
    if abi < 1:
        # (seccomp sees no paths: it refuses writing opens, not reading ones)
        found.append("Landlock (the kernel offers none): reading files is not refused")
    if not seccomp_available():
        # (Landlock has no access right for a new process, UDP or a UNIX socket on disk)
        open_ = ["new processes", "UDP and UNIX sockets"] + (["TCP"] if abi < 4 else []) + \
            (["signals to other processes"] if abi < 6 else [])
        found.append(f"seccomp (libseccomp not found): {', '.join(open_)} are not refused")
    return found


def describe():
    """One line for `gradcli --version`: what walls an evaluator stands behind here."""
    gone = missing()
    if sys.platform.startswith("linux"):
        abi = landlock_abi()
        parts = [f"Landlock ABI {abi}" if abi else None,
                 "seccomp" if seccomp_available() else None, "no_new_privs", "rlimits"]
        up = ", ".join(p for p in parts if p)
    else:
        up = "rlimits"
    return f"evaluator wall: {up}" + (f"; missing: {'; '.join(gone)}" if gone else "")


class WallError(Exception):
    """A piece of the wall that this machine offers could not be raised: the evaluator stops
    rather than run a program behind less than `gradcli --version` says."""


def _leave_directory():
    """Work from / rather than the user's directory, whose name tells whose and where it is
    (the evaluator reads no file through it).  sys.path's relative entries (`''` for `python
    -c` and `-m`) are made absolute first, so a module imported later is found as before."""
    try:
        cwd = os.getcwd()
    except OSError:  # (a directory removed under it: its name is gone already)
        cwd = None
    if cwd is not None:
        sys.path[:] = [p if os.path.isabs(p) else os.path.join(cwd, p) for p in sys.path]
    os.chdir("/")


def raise_wall(memory=0, cpu_seconds=None):
    """Give up, for good, what a program never needs (see the module's docstring).  Called in
    the evaluator after its imports; returns the pieces this machine does not offer (as
    missing() names them).  Raises WallError when one it offers fails."""
    skipped = []
    _rlimits(memory, cpu_seconds)
    if not sys.platform.startswith("linux"):
        return ["Landlock", "seccomp"]
    die_with_frontend()
    if os.getppid() == 1:  # (it went before that was set)
        os._exit(2)
    _leave_directory()
    _drop_capabilities()
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise WallError("no_new_privs")
    seccomp = _libseccomp()  # (before Landlock: it reads the system's library directory)
    abi = landlock_abi()
    if abi >= 1:
        try:
            _landlock(abi)
        except OSError as e:
            raise WallError(f"Landlock ({e})") from None
    else:
        skipped.append("Landlock")
    if seccomp is not None:
        try:
            _seccomp(seccomp)
        except (OSError, RuntimeError, ValueError) as e:
            raise WallError(f"seccomp ({e})") from None
    else:
        skipped.append("seccomp")
    if not _tasks_apart:
        skipped.append("a bound on threads")
    return skipped
