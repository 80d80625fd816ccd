/* SPDX-License-Identifier: Apache-2.0 */
/* The named syscall groups of the seccomp filters (seccomp.h, docs/seccomp.md), as static
 * tables with a comment per entry. Deny groups make the "default"
 * and "xpud" deny lists; allow groups make "strict" and may be named ("@name") in a JSON list.
 * Sources: the Linux syscall tables, systemd src/shared/seccomp-util.c (its @mount, @module,
 * @reboot, @swap, @raw-io, @clock, @debug, @obsolete, @cpu-emulation groups) and the
 * moby/containerd default profile (what a container without CAP_SYS_ADMIN may not call). */
#include <stddef.h>

#include "base/macro.h"
#include "sandbox/seccomp-internal.h"

/* ---- deny groups ----------------------------------------------------------------------------- */

static const struct xpu_sc_entry deny_mount[] = {
        { "mount", XPU_SC_PLAIN },         /* the old mount API */
        { "umount", XPU_SC_PLAIN },        /* i386's one-argument umount */
        { "umount2", XPU_SC_PLAIN },       /* unmount */
        { "move_mount", XPU_SC_PLAIN },    /* new mount API: attach a mount */
        { "open_tree", XPU_SC_PLAIN },     /* new mount API: clone a tree */
        { "fsopen", XPU_SC_PLAIN },        /* new mount API: file system context */
        { "fsmount", XPU_SC_PLAIN },       /* new mount API: context to mount */
        { "fsconfig", XPU_SC_PLAIN },      /* new mount API: configure a context */
        { "fspick", XPU_SC_PLAIN },        /* new mount API: reconfigure a mount */
        { "mount_setattr", XPU_SC_PLAIN }, /* change a tree's mount flags (idmapped mounts) */
        { "pivot_root", XPU_SC_PLAIN },    /* change the root mount */
        { "chroot", XPU_SC_PLAIN },        /* change the root directory (CVE-style escapes with an fd) */
};

static const struct xpu_sc_entry deny_module[] = {
        { "init_module", XPU_SC_PLAIN },     /* load a kernel module from memory */
        { "finit_module", XPU_SC_PLAIN },    /* load a kernel module from an fd */
        { "delete_module", XPU_SC_PLAIN },   /* unload a kernel module */
        { "create_module", XPU_SC_PLAIN },   /* obsolete (Linux 2.4) */
        { "query_module", XPU_SC_PLAIN },    /* obsolete (Linux 2.4) */
        { "get_kernel_syms", XPU_SC_PLAIN }, /* obsolete (Linux 2.4) */
};

static const struct xpu_sc_entry deny_reboot[] = {
        { "reboot", XPU_SC_PLAIN },          /* reboot, halt, Ctrl-Alt-Del behaviour */
        { "kexec_load", XPU_SC_PLAIN },      /* load a new kernel */
        { "kexec_file_load", XPU_SC_PLAIN }, /* load a new kernel from fds */
};

static const struct xpu_sc_entry deny_swap[] = {
        { "swapon", XPU_SC_PLAIN },  /* add swap */
        { "swapoff", XPU_SC_PLAIN }, /* remove swap */
};

static const struct xpu_sc_entry deny_clock[] = {
        { "settimeofday", XPU_SC_PLAIN },  /* set the wall clock */
        { "clock_settime", XPU_SC_PLAIN }, /* set a clock */
        { "clock_adjtime", XPU_SC_PLAIN }, /* adjust a clock (NTP) */
        { "adjtimex", XPU_SC_PLAIN },      /* adjust the system clock (NTP) */
        { "stime", XPU_SC_PLAIN },         /* i386: set the time */
};

static const struct xpu_sc_entry deny_debug[] = {
        { "ptrace", XPU_SC_PLAIN },            /* all of it, PTRACE_TRACEME included (docs/seccomp.md) */
        { "process_vm_readv", XPU_SC_PLAIN },  /* read another process's memory */
        { "process_vm_writev", XPU_SC_PLAIN }, /* write another process's memory */
        { "kcmp", XPU_SC_PLAIN },              /* compare kernel objects of two processes */
        { "pidfd_getfd", XPU_SC_PLAIN },       /* steal another process's fd */
        { "perf_event_open", XPU_SC_PLAIN },   /* performance counters: kernel attack surface */
        { "bpf", XPU_SC_PLAIN },               /* eBPF programs and maps */
        { "lookup_dcookie", XPU_SC_PLAIN },    /* profiling (oprofile) */
};

static const struct xpu_sc_entry deny_keyring[] = {
        { "keyctl", XPU_SC_PLAIN },      /* the kernel keyring is not namespaced */
        { "add_key", XPU_SC_PLAIN },     /* add a key */
        { "request_key", XPU_SC_PLAIN }, /* look up or create a key */
};

static const struct xpu_sc_entry deny_namespace[] = {
        { "unshare", XPU_SC_PLAIN },    /* every flag: new namespaces (CLONE_NEWUSER) and CLONE_FS/FILES alike */
        { "setns", XPU_SC_PLAIN },      /* join another namespace */
        { "clone", XPU_SC_CLONE_NS },   /* only with a CLONE_NEW* flag: fork and threads still work */
        { "clone3", XPU_SC_ENOSYS },    /* flags are in memory: ENOSYS so libc falls back to clone */
};

static const struct xpu_sc_entry deny_raw_io[] = {
        { "iopl", XPU_SC_PLAIN },              /* I/O privilege level */
        { "ioperm", XPU_SC_PLAIN },            /* I/O port permissions */
        { "pciconfig_read", XPU_SC_PLAIN },    /* PCI configuration space (some arches) */
        { "pciconfig_write", XPU_SC_PLAIN },   /* PCI configuration space (some arches) */
        { "pciconfig_iobase", XPU_SC_PLAIN },  /* PCI I/O base (some arches) */
        { "open_by_handle_at", XPU_SC_PLAIN }, /* open any inode of a mount by handle ("shocker") */
        { "userfaultfd", XPU_SC_PLAIN },       /* widens kernel races (use-after-free exploits) */
        { "personality", XPU_SC_PERSONALITY }, /* only the personas that weaken the address space */
};

static const struct xpu_sc_entry deny_system[] = {
        { "acct", XPU_SC_PLAIN },         /* process accounting to a file */
        { "quotactl", XPU_SC_PLAIN },     /* disk quotas */
        { "quotactl_fd", XPU_SC_PLAIN },  /* disk quotas by fd */
        { "syslog", XPU_SC_PLAIN },       /* the kernel log ring */
        { "vhangup", XPU_SC_PLAIN },      /* hang up the terminal */
        { "nfsservctl", XPU_SC_PLAIN },   /* removed in Linux 3.1 */
        { "uselib", XPU_SC_PLAIN },       /* a.out shared libraries */
        { "_sysctl", XPU_SC_PLAIN },      /* removed binary sysctl */
        { "sysfs", XPU_SC_PLAIN },        /* obsolete file system type query */
        { "ustat", XPU_SC_PLAIN },        /* obsolete file system statistics */
        { "vm86", XPU_SC_PLAIN },         /* i386 virtual 8086 mode */
        { "vm86old", XPU_SC_PLAIN },      /* i386 virtual 8086 mode */
        { "fanotify_init", XPU_SC_PLAIN }, /* file system wide event monitoring */
};

/* io_uring: its operations bypass every rule of this filter (an SQE opens, reads or connects
 * without the matching system call), and it has been a steady source of kernel bugs; denied by
 * Docker since 25.0 and by containerd's default profile. */
static const struct xpu_sc_entry deny_io_uring[] = {
        { "io_uring_setup", XPU_SC_PLAIN },    /* create a ring */
        { "io_uring_enter", XPU_SC_PLAIN },    /* submit and wait */
        { "io_uring_register", XPU_SC_PLAIN }, /* register buffers and files */
};

/* Only in "xpud": xpud never starts a program. */
static const struct xpu_sc_entry deny_xpud[] = {
        { "execve", XPU_SC_PLAIN },            /* xpud and its vendor helper never exec */
        { "execveat", XPU_SC_PLAIN },          /* the same from an fd */
        { "memfd_secret", XPU_SC_PLAIN },      /* unused */
        { "mknod", XPU_SC_PLAIN },             /* xpud creates no device node */
        { "mknodat", XPU_SC_PLAIN },           /* xpud creates no device node */
};

/* ---- allow groups (strict) ------------------------------------------------------------------- */

static const struct xpu_sc_entry allow_basic_io[] = {
        { "read", XPU_SC_PLAIN },      { "write", XPU_SC_PLAIN },      { "readv", XPU_SC_PLAIN },
        { "writev", XPU_SC_PLAIN },    { "pread64", XPU_SC_PLAIN },    { "pwrite64", XPU_SC_PLAIN },
        { "preadv", XPU_SC_PLAIN },    { "pwritev", XPU_SC_PLAIN },    { "preadv2", XPU_SC_PLAIN },
        { "pwritev2", XPU_SC_PLAIN },  { "lseek", XPU_SC_PLAIN },      { "_llseek", XPU_SC_PLAIN }, /* i386 */
        { "close", XPU_SC_PLAIN },     { "close_range", XPU_SC_PLAIN }, { "dup", XPU_SC_PLAIN },
        { "dup2", XPU_SC_PLAIN },      { "dup3", XPU_SC_PLAIN },       { "fcntl", XPU_SC_PLAIN },
        { "fcntl64", XPU_SC_PLAIN },   /* i386 */
        { "pipe", XPU_SC_PLAIN },      { "pipe2", XPU_SC_PLAIN },      { "sendfile", XPU_SC_PLAIN },
        { "sendfile64", XPU_SC_PLAIN }, /* i386 */
        { "splice", XPU_SC_PLAIN },    { "tee", XPU_SC_PLAIN },        { "vmsplice", XPU_SC_PLAIN },
        { "copy_file_range", XPU_SC_PLAIN },
        { "ioctl", XPU_SC_PLAIN },     /* GPU drivers (nvidia, amdgpu, kfd) are driven by ioctl */
};

static const struct xpu_sc_entry allow_file_system[] = {
        { "open", XPU_SC_PLAIN },        { "openat", XPU_SC_PLAIN },       { "openat2", XPU_SC_PLAIN },
        { "creat", XPU_SC_PLAIN },       { "stat", XPU_SC_PLAIN },         { "fstat", XPU_SC_PLAIN },
        { "lstat", XPU_SC_PLAIN },       { "newfstatat", XPU_SC_PLAIN },   { "statx", XPU_SC_PLAIN },
        { "stat64", XPU_SC_PLAIN },      { "fstat64", XPU_SC_PLAIN },      { "lstat64", XPU_SC_PLAIN },
        { "fstatat64", XPU_SC_PLAIN },   { "statfs", XPU_SC_PLAIN },       { "fstatfs", XPU_SC_PLAIN },
        { "statfs64", XPU_SC_PLAIN },    { "fstatfs64", XPU_SC_PLAIN },    { "access", XPU_SC_PLAIN },
        { "faccessat", XPU_SC_PLAIN },   { "faccessat2", XPU_SC_PLAIN },   { "readlink", XPU_SC_PLAIN },
        { "readlinkat", XPU_SC_PLAIN },  { "getdents", XPU_SC_PLAIN },     { "getdents64", XPU_SC_PLAIN },
        { "mkdir", XPU_SC_PLAIN },       { "mkdirat", XPU_SC_PLAIN },      { "rmdir", XPU_SC_PLAIN },
        { "unlink", XPU_SC_PLAIN },      { "unlinkat", XPU_SC_PLAIN },     { "rename", XPU_SC_PLAIN },
        { "renameat", XPU_SC_PLAIN },    { "renameat2", XPU_SC_PLAIN },    { "link", XPU_SC_PLAIN },
        { "linkat", XPU_SC_PLAIN },      { "symlink", XPU_SC_PLAIN },      { "symlinkat", XPU_SC_PLAIN },
        { "chmod", XPU_SC_PLAIN },       { "fchmod", XPU_SC_PLAIN },       { "fchmodat", XPU_SC_PLAIN },
        { "chown", XPU_SC_PLAIN },       { "fchown", XPU_SC_PLAIN },       { "lchown", XPU_SC_PLAIN },
        { "fchownat", XPU_SC_PLAIN },    { "chown32", XPU_SC_PLAIN },      { "fchown32", XPU_SC_PLAIN },
        { "lchown32", XPU_SC_PLAIN },    { "truncate", XPU_SC_PLAIN },     { "ftruncate", XPU_SC_PLAIN },
        { "truncate64", XPU_SC_PLAIN },  { "ftruncate64", XPU_SC_PLAIN },  { "fsync", XPU_SC_PLAIN },
        { "fdatasync", XPU_SC_PLAIN },   { "sync", XPU_SC_PLAIN },         { "syncfs", XPU_SC_PLAIN },
        { "sync_file_range", XPU_SC_PLAIN }, { "fallocate", XPU_SC_PLAIN }, { "fadvise64", XPU_SC_PLAIN },
        { "fadvise64_64", XPU_SC_PLAIN }, { "readahead", XPU_SC_PLAIN },   { "flock", XPU_SC_PLAIN },
        { "umask", XPU_SC_PLAIN },       { "getcwd", XPU_SC_PLAIN },       { "chdir", XPU_SC_PLAIN },
        { "fchdir", XPU_SC_PLAIN },      { "utime", XPU_SC_PLAIN },        { "utimes", XPU_SC_PLAIN },
        { "utimensat", XPU_SC_PLAIN },   { "futimesat", XPU_SC_PLAIN },    { "getxattr", XPU_SC_PLAIN },
        { "lgetxattr", XPU_SC_PLAIN },   { "fgetxattr", XPU_SC_PLAIN },    { "listxattr", XPU_SC_PLAIN },
        { "llistxattr", XPU_SC_PLAIN },  { "flistxattr", XPU_SC_PLAIN },   { "inotify_init", XPU_SC_PLAIN },
        { "inotify_init1", XPU_SC_PLAIN }, { "inotify_add_watch", XPU_SC_PLAIN },
        { "inotify_rm_watch", XPU_SC_PLAIN }, { "memfd_create", XPU_SC_PLAIN },
};

static const struct xpu_sc_entry allow_memory[] = {
        { "brk", XPU_SC_PLAIN },         { "mmap", XPU_SC_PLAIN },         { "mmap2", XPU_SC_PLAIN }, /* i386 */
        { "munmap", XPU_SC_PLAIN },      { "mremap", XPU_SC_PLAIN },       { "mprotect", XPU_SC_PLAIN },
        { "pkey_mprotect", XPU_SC_PLAIN }, { "pkey_alloc", XPU_SC_PLAIN }, { "pkey_free", XPU_SC_PLAIN },
        { "madvise", XPU_SC_PLAIN },     { "mincore", XPU_SC_PLAIN },      { "msync", XPU_SC_PLAIN },
        { "mlock", XPU_SC_PLAIN },       { "mlock2", XPU_SC_PLAIN },       { "munlock", XPU_SC_PLAIN },
        { "mlockall", XPU_SC_PLAIN },    { "munlockall", XPU_SC_PLAIN },
        { "mbind", XPU_SC_PLAIN },       /* NUMA placement of GPU staging buffers */
        { "get_mempolicy", XPU_SC_PLAIN }, { "set_mempolicy", XPU_SC_PLAIN },
        { "membarrier", XPU_SC_PLAIN },  /* language runtimes (JITs) */
};

static const struct xpu_sc_entry allow_process[] = {
        { "clone", XPU_SC_CLONE_NS },    /* threads and fork, never with a CLONE_NEW* flag */
        { "clone3", XPU_SC_ENOSYS },     /* ENOSYS: glibc falls back to clone */
        { "fork", XPU_SC_PLAIN },        { "vfork", XPU_SC_PLAIN },        { "execve", XPU_SC_PLAIN },
        { "execveat", XPU_SC_PLAIN },    { "exit", XPU_SC_PLAIN },         { "exit_group", XPU_SC_PLAIN },
        { "wait4", XPU_SC_PLAIN },       { "waitid", XPU_SC_PLAIN },       { "waitpid", XPU_SC_PLAIN }, /* i386 */
        { "futex", XPU_SC_PLAIN },       { "futex_waitv", XPU_SC_PLAIN },  { "set_robust_list", XPU_SC_PLAIN },
        { "get_robust_list", XPU_SC_PLAIN }, { "set_tid_address", XPU_SC_PLAIN },
        { "rseq", XPU_SC_PLAIN },        /* glibc 2.35+ registers it per thread */
        { "arch_prctl", XPU_SC_PLAIN },  /* x86_64 TLS set-up */
        { "set_thread_area", XPU_SC_PLAIN }, { "get_thread_area", XPU_SC_PLAIN }, /* i386 TLS */
        { "prctl", XPU_SC_PLAIN },       /* names, PR_SET_PDEATHSIG; privileged options stay cap-checked */
        { "getpid", XPU_SC_PLAIN },      { "getppid", XPU_SC_PLAIN },      { "gettid", XPU_SC_PLAIN },
        { "getuid", XPU_SC_PLAIN },      { "geteuid", XPU_SC_PLAIN },      { "getgid", XPU_SC_PLAIN },
        { "getegid", XPU_SC_PLAIN },     { "getuid32", XPU_SC_PLAIN },     { "geteuid32", XPU_SC_PLAIN },
        { "getgid32", XPU_SC_PLAIN },    { "getegid32", XPU_SC_PLAIN },    { "getresuid", XPU_SC_PLAIN },
        { "getresgid", XPU_SC_PLAIN },   { "getresuid32", XPU_SC_PLAIN },  { "getresgid32", XPU_SC_PLAIN },
        { "getgroups", XPU_SC_PLAIN },   { "getgroups32", XPU_SC_PLAIN },  { "getpgid", XPU_SC_PLAIN },
        { "getpgrp", XPU_SC_PLAIN },     { "setpgid", XPU_SC_PLAIN },      { "getsid", XPU_SC_PLAIN },
        { "setsid", XPU_SC_PLAIN },      { "capget", XPU_SC_PLAIN },       { "getrlimit", XPU_SC_PLAIN },
        { "ugetrlimit", XPU_SC_PLAIN },  { "setrlimit", XPU_SC_PLAIN },    { "prlimit64", XPU_SC_PLAIN },
        { "getrusage", XPU_SC_PLAIN },   { "getrandom", XPU_SC_PLAIN },    { "uname", XPU_SC_PLAIN },
        { "sysinfo", XPU_SC_PLAIN },     { "getcpu", XPU_SC_PLAIN },       { "restart_syscall", XPU_SC_PLAIN },
        { "pidfd_open", XPU_SC_PLAIN },  { "pidfd_send_signal", XPU_SC_PLAIN },
};

static const struct xpu_sc_entry allow_signal[] = {
        { "rt_sigaction", XPU_SC_PLAIN }, { "rt_sigprocmask", XPU_SC_PLAIN }, { "rt_sigreturn", XPU_SC_PLAIN },
        { "rt_sigpending", XPU_SC_PLAIN }, { "rt_sigsuspend", XPU_SC_PLAIN }, { "rt_sigtimedwait", XPU_SC_PLAIN },
        { "rt_sigqueueinfo", XPU_SC_PLAIN }, { "rt_tgsigqueueinfo", XPU_SC_PLAIN },
        { "sigaction", XPU_SC_PLAIN },   { "sigprocmask", XPU_SC_PLAIN },  { "sigreturn", XPU_SC_PLAIN }, /* i386 */
        { "sigaltstack", XPU_SC_PLAIN }, { "signalfd", XPU_SC_PLAIN },     { "signalfd4", XPU_SC_PLAIN },
        { "kill", XPU_SC_PLAIN },        { "tkill", XPU_SC_PLAIN },        { "tgkill", XPU_SC_PLAIN },
        { "pause", XPU_SC_PLAIN },       { "alarm", XPU_SC_PLAIN },
};

static const struct xpu_sc_entry allow_time[] = {
        { "clock_gettime", XPU_SC_PLAIN }, { "clock_getres", XPU_SC_PLAIN }, { "clock_nanosleep", XPU_SC_PLAIN },
        { "clock_gettime64", XPU_SC_PLAIN }, { "clock_nanosleep_time64", XPU_SC_PLAIN }, /* i386 */
        { "gettimeofday", XPU_SC_PLAIN }, { "time", XPU_SC_PLAIN },       { "times", XPU_SC_PLAIN },
        { "nanosleep", XPU_SC_PLAIN },   { "getitimer", XPU_SC_PLAIN },    { "setitimer", XPU_SC_PLAIN },
        { "timer_create", XPU_SC_PLAIN }, { "timer_settime", XPU_SC_PLAIN }, { "timer_gettime", XPU_SC_PLAIN },
        { "timer_getoverrun", XPU_SC_PLAIN }, { "timer_delete", XPU_SC_PLAIN },
        { "timerfd_create", XPU_SC_PLAIN }, { "timerfd_settime", XPU_SC_PLAIN },
        { "timerfd_gettime", XPU_SC_PLAIN },
};

static const struct xpu_sc_entry allow_sched[] = {
        { "sched_yield", XPU_SC_PLAIN }, { "sched_getaffinity", XPU_SC_PLAIN },
        { "sched_setaffinity", XPU_SC_PLAIN }, { "sched_getparam", XPU_SC_PLAIN },
        { "sched_setparam", XPU_SC_PLAIN }, { "sched_getscheduler", XPU_SC_PLAIN },
        { "sched_setscheduler", XPU_SC_PLAIN }, { "sched_get_priority_max", XPU_SC_PLAIN },
        { "sched_get_priority_min", XPU_SC_PLAIN }, { "sched_rr_get_interval", XPU_SC_PLAIN },
        { "sched_getattr", XPU_SC_PLAIN }, { "sched_setattr", XPU_SC_PLAIN },
        { "getpriority", XPU_SC_PLAIN }, { "setpriority", XPU_SC_PLAIN },
};

static const struct xpu_sc_entry allow_io_event[] = {
        { "select", XPU_SC_PLAIN },      { "_newselect", XPU_SC_PLAIN },   { "pselect6", XPU_SC_PLAIN },
        { "poll", XPU_SC_PLAIN },        { "ppoll", XPU_SC_PLAIN },        { "epoll_create", XPU_SC_PLAIN },
        { "epoll_create1", XPU_SC_PLAIN }, { "epoll_ctl", XPU_SC_PLAIN },  { "epoll_wait", XPU_SC_PLAIN },
        { "epoll_pwait", XPU_SC_PLAIN }, { "epoll_pwait2", XPU_SC_PLAIN }, { "eventfd", XPU_SC_PLAIN },
        { "eventfd2", XPU_SC_PLAIN },
};

static const struct xpu_sc_entry allow_ipc[] = {
        { "shmget", XPU_SC_PLAIN },      { "shmat", XPU_SC_PLAIN },        { "shmdt", XPU_SC_PLAIN },
        { "shmctl", XPU_SC_PLAIN },      /* CUDA IPC and NCCL's shared memory transport */
        { "semget", XPU_SC_PLAIN },      { "semop", XPU_SC_PLAIN },        { "semtimedop", XPU_SC_PLAIN },
        { "semctl", XPU_SC_PLAIN },      { "msgget", XPU_SC_PLAIN },       { "msgsnd", XPU_SC_PLAIN },
        { "msgrcv", XPU_SC_PLAIN },      { "msgctl", XPU_SC_PLAIN },       { "ipc", XPU_SC_PLAIN }, /* i386 */
        { "mq_open", XPU_SC_PLAIN },     { "mq_unlink", XPU_SC_PLAIN },    { "mq_timedsend", XPU_SC_PLAIN },
        { "mq_timedreceive", XPU_SC_PLAIN }, { "mq_notify", XPU_SC_PLAIN }, { "mq_getsetattr", XPU_SC_PLAIN },
};

static const struct xpu_sc_entry allow_network[] = {
        { "socket", XPU_SC_SOCKET },     /* AF_UNIX, AF_INET, AF_INET6, AF_NETLINK only */
        { "socketpair", XPU_SC_PLAIN },  { "connect", XPU_SC_PLAIN },      { "bind", XPU_SC_PLAIN },
        { "listen", XPU_SC_PLAIN },      { "accept", XPU_SC_PLAIN },       { "accept4", XPU_SC_PLAIN },
        { "sendto", XPU_SC_PLAIN },      { "recvfrom", XPU_SC_PLAIN },     { "sendmsg", XPU_SC_PLAIN },
        { "recvmsg", XPU_SC_PLAIN },     { "sendmmsg", XPU_SC_PLAIN },     { "recvmmsg", XPU_SC_PLAIN },
        { "shutdown", XPU_SC_PLAIN },    { "getsockname", XPU_SC_PLAIN },  { "getpeername", XPU_SC_PLAIN },
        { "setsockopt", XPU_SC_PLAIN },  { "getsockopt", XPU_SC_PLAIN },
        { "send", XPU_SC_PLAIN },        { "recv", XPU_SC_PLAIN },         /* some arches */
};

#define GROUP(n, d, t, s) { n, d, t, ELEMENTSOF(t), s }
const struct xpu_sc_group xpu_sc_groups[] = {
        GROUP("mount", true, deny_mount, "mounting, the new mount API, pivot_root, chroot"),
        GROUP("module", true, deny_module, "loading and unloading kernel modules"),
        GROUP("reboot", true, deny_reboot, "reboot and kexec"),
        GROUP("swap", true, deny_swap, "swapon, swapoff"),
        GROUP("clock", true, deny_clock, "setting the clocks"),
        GROUP("debug", true, deny_debug, "ptrace, other processes' memory, bpf, perf_event_open"),
        GROUP("keyring", true, deny_keyring, "the kernel keyring"),
        GROUP("namespace", true, deny_namespace, "unshare, setns, clone with CLONE_NEW*, clone3 (ENOSYS)"),
        GROUP("raw-io", true, deny_raw_io, "I/O ports, PCI config, open_by_handle_at, userfaultfd, personas"),
        GROUP("system", true, deny_system, "accounting, quotas, kernel log, obsolete calls"),
        GROUP("io-uring", true, deny_io_uring, "io_uring, whose operations no rule sees"),
        GROUP("xpud-extra", true, deny_xpud, "exec, mknod: what only xpud gives up"),
        GROUP("basic-io", false, allow_basic_io, "read/write on fds, pipes, ioctl"),
        GROUP("file-system", false, allow_file_system, "paths: open, stat, directories, links, xattr reads"),
        GROUP("memory", false, allow_memory, "mmap, mprotect, madvise, NUMA policy, locking"),
        GROUP("process", false, allow_process, "threads, fork, exec, ids, limits, prctl, getrandom"),
        GROUP("signal", false, allow_signal, "signal handling and sending"),
        GROUP("time", false, allow_time, "reading clocks, sleeping, timers"),
        GROUP("sched", false, allow_sched, "scheduler and priority"),
        GROUP("io-event", false, allow_io_event, "poll, select, epoll, eventfd"),
        GROUP("ipc", false, allow_ipc, "System V and POSIX IPC"),
        GROUP("network", false, allow_network, "sockets (AF_UNIX, AF_INET, AF_INET6, AF_NETLINK)"),
};
const size_t xpu_sc_n_groups = ELEMENTSOF(xpu_sc_groups);
