// See include/glance_sandbox.h.
#define _GNU_SOURCE
#include "glance_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <termios.h>
#include <unistd.h>

// Allowed with any arguments: what the worker, glibc, the Swift runtime, Foundation, GLib,
// cairo, pango, fontconfig, poppler, libjpeg and libpng were seen to call while rendering every
// file of the conformance corpus and the test assets (strace), plus their near relatives that
// another libc path may take (stat/fstat/newfstatat/statx, poll/ppoll, nanosleep/clock_nanosleep).
static const char *const always_allowed[] = {
    // The job socket and the documents: descriptors that were given to us.
    "read", "readv", "pread64", "preadv", "preadv2", "recvmsg", "recvfrom", "write", "writev", "lseek",
    "close", "close_range", "dup", "dup3", "fcntl", "fstat", "newfstatat", "stat", "lstat", "statx",
    "fstatfs", "statfs", "fadvise64", "getdents64", "access", "faccessat", "faccessat2", "readlink",
    "readlinkat", "getcwd", "poll", "ppoll",
    // Memory. memfd_create: a video's or a song's cover picture handed to the image decoders as
    // a file of its own, anonymous memory with no name in any folder.
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "memfd_create",
    // Threads and their synchronisation (clone itself is checked below).
    "futex", "set_robust_list", "get_robust_list", "rseq", "set_tid_address", "sched_yield",
    "sched_getaffinity", "exit", "exit_group", "restart_syscall",
    // Signals (sending is checked below).
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack",
    // Time, identity, randomness.
    "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep", "clock_nanosleep", "getpid", "gettid",
    "getppid", "getuid", "geteuid", "getgid", "getegid", "getrandom", "uname", "sysinfo", "getrusage",
};

static int allow_all(scmp_filter_ctx filter) {
    for (size_t index = 0; index < sizeof always_allowed / sizeof always_allowed[0]; index++) {
        int call = seccomp_syscall_resolve_name(always_allowed[index]);
        if (call == __NR_SCMP_ERROR) continue;  // Not a system call on this architecture.
        int status = seccomp_rule_add(filter, SCMP_ACT_ALLOW, call, 0);
        if (status < 0) return status;
    }
    return 0;
}

// What may be asked of the arguments: opening read-only, threads not processes, signals to
// ourselves, reading limits, naming a thread, the two terminal queries glibc makes of standard
// error.
static int allow_checked(scmp_filter_ctx filter, pid_t self) {
    const scmp_datum_t writing = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | (O_TMPFILE & ~O_DIRECTORY);
    int status = 0;
    // openat(dirfd, path, flags, mode): flags without any of the writing bits. O_TMPFILE includes
    // O_DIRECTORY, which reading a folder needs: only its own bit counts.
    status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, writing, 0));
#ifdef __NR_open
    status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, writing, 0));
#endif
    // clone(flags, ...) for a thread: CLONE_THREAD set (a new process would not have it).
    status |= seccomp_rule_add(
        filter, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
    status |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    // Refused, not fatal, for libheif (loaded on the first HEIC or AVIF): libnuma, which x265 links
    // and libheif links x265, probes get_mempolicy and set_mempolicy in its constructor (ENOSYS:
    // it then sees no NUMA, as in a container); libde265's worker threads set their own priority
    // with setpriority (EPERM: they keep the renderer's).
    status |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(get_mempolicy), 0);
    status |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(set_mempolicy), 0);
    status |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setpriority), 0);
    // And for FFmpeg (loaded on the first video or sound file): libavformat links libssh, whose
    // constructor has libgcrypt lock its secure memory with mlock (EPERM: gcrypt goes on without
    // locked pages, which no document needs).
    status |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(mlock), 0);
    // raise() and abort(): tgkill(our pid, thread, signal); kill(our pid, signal).
    status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
    status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
    // getrlimit is prlimit64(0, resource, NULL, old): reading only.
    status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 1, SCMP_A2(SCMP_CMP_EQ, 0));
    // A thread naming itself (GLib names pango's font thread): prctl(PR_SET_NAME / PR_GET_NAME).
    status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_NAME));
    status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_GET_NAME));
    // libcap's constructor (libgs brings it, through CUPS) reads the capability bounding set when
    // Ghostscript is loaded: prctl(PR_CAPBSET_READ), reading only.
    status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_CAPBSET_READ));
    status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, TCGETS));
    status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, FIONREAD));
    return status;
}

int glance_sandbox_enter(void) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (filter == NULL) return -ENOMEM;
    // Every thread, including any a library started while warming up.
    int status = seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
    if (status == 0) status = allow_all(filter);
    if (status == 0) status = allow_checked(filter, getpid()) < 0 ? -EINVAL : 0;
    if (status == 0) status = seccomp_load(filter);
    seccomp_release(filter);
    return status;
}

// The office renderer's calls beyond a renderer's, with any arguments: its temporary files and
// profile, and the descriptors its threads wake each other with.
static const char *const office_allowed[] = {
    "openat", "open", "creat", "mkdir", "mkdirat", "unlink", "unlinkat", "rmdir", "rename", "renameat",
    "renameat2", "link", "linkat", "symlink", "symlinkat", "ftruncate", "truncate", "fsync", "fdatasync",
    "fallocate", "fchmod", "fchmodat", "chmod", "fchown", "utimensat", "futimesat", "utime", "utimes", "flock",
    "chdir", "fchdir", "umask", "pipe", "pipe2", "eventfd", "eventfd2", "epoll_create", "epoll_create1",
    "epoll_ctl", "epoll_wait", "epoll_pwait", "select", "pselect6", "socketpair", "sendmsg", "sendto",
    "shutdown", "getsockopt", "setsockopt", "getsockname", "getpeername", "dup2", "pwrite64", "pwritev",
    "inotify_init1", "inotify_add_watch", "inotify_rm_watch", "getresuid", "getresgid", "getgroups", "getpgrp",
    "getpgid", "getsid", "getpriority", "sched_getparam", "sched_getscheduler", "sched_get_priority_max",
    "sched_get_priority_min", "timerfd_create", "timerfd_settime", "timerfd_gettime", "membarrier", "mincore",
    "msync", "getitimer", "setitimer", "alarm", "pause", "wait4", "waitid", "tkill", "ioctl", "prctl",
    "prlimit64", "getrlimit", "capget", "fstatfs", "mlock", "munlock", "shmget", "shmat", "shmdt", "shmctl",
};

// Killed at once: what no office renderer has a use for and an attacker would want.
static const char *const office_fatal[] = {
    "execve", "execveat", "ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root",
    "chroot", "unshare", "setns", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd", "open_by_handle_at",
    "name_to_handle_at", "fork", "vfork", "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid",
    "setgroups", "capset", "personality", "seccomp", "kcmp", "swapon", "swapoff", "reboot",
};

static int add_named(scmp_filter_ctx filter, uint32_t action, const char *const *names, size_t count) {
    for (size_t index = 0; index < count; index++) {
        int call = seccomp_syscall_resolve_name(names[index]);
        if (call == __NR_SCMP_ERROR) continue;
        int status = seccomp_rule_add(filter, action, call, 0);
        if (status < 0) return status;
    }
    return 0;
}

int glance_sandbox_enter_office(void) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    if (filter == NULL) return -ENOMEM;
    pid_t self = getpid();
    int status = seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1);
    if (status == 0) status = allow_all(filter);
    if (status == 0)
        status = add_named(filter, SCMP_ACT_ALLOW, office_allowed, sizeof office_allowed / sizeof office_allowed[0]);
    if (status == 0)
        status = add_named(filter, SCMP_ACT_KILL_PROCESS, office_fatal, sizeof office_fatal / sizeof office_fatal[0]);
    if (status == 0) {
        // Threads only; a new process (posix_spawn's clone without CLONE_THREAD) gets the default
        // answer, EPERM (libseccomp refuses a rule whose action is the default one).
        status |= seccomp_rule_add(
            filter, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
        status |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
        // Unix sockets (and socket pairs) only: any other family is refused, not fatal.
        status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
        status |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
        // connect: a Unix socket is all there is to connect (the name service cache, which the
        // sandbox does not show); bind and listen are refused by default.
        status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(connect), 0);
        // Signals to this process only.
        status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
        status |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
        status |= seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)self));
        status |= seccomp_rule_add(filter, SCMP_ACT_KILL_PROCESS, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_NE, (scmp_datum_t)self));
        status = status < 0 ? -EINVAL : 0;
    }
    if (status == 0) status = seccomp_load(filter);
    seccomp_release(filter);
    return status;
}

int glance_sandbox_violation_signal(void) { return SIGSYS; }
