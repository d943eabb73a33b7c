// C shim for the worker's sandbox: no_new_privs and a seccomp filter (libseccomp).
#ifndef GLANCE_SANDBOX_H
#define GLANCE_SANDBOX_H

#include <stddef.h>

/// Confines the calling process for good, on every thread it has: sets no_new_privs (no exec can
/// gain privileges) and loads a seccomp filter that allows only the system calls a renderer needs
/// once it is warmed up (reading descriptors it was given, opening files read-only, memory,
/// threads, time, signals to itself) and kills the whole process with SIGSYS on any other:
/// sockets, exec, fork, ptrace, opening a file for writing, creating, renaming or removing files,
/// changing limits, mounting. `clone3` answers ENOSYS (its flags are out of the filter's reach),
/// so that glibc falls back to `clone`, which is allowed for threads only.
///
/// Returns 0, or a negative errno value if the filter could not be built or loaded (a kernel
/// without seccomp, or a filter above us that forbids `seccomp` itself).
int glance_sandbox_enter(void);

/// Confines an office renderer (LibreOffice running in this process, already started): the same
/// no_new_privs, and a filter for a program of some fifteen threads that writes its own temporary
/// files. Allowed: what `glance_sandbox_enter` allows, and creating, writing, renaming and removing
/// files (where bubblewrap leaves anything writable, only the renderer's private temporary
/// folder), pipes, event descriptors and Unix socket pairs. Refused with EACCES: any socket but a
/// Unix one, so nothing can reach a network even without bubblewrap's network namespace. Killed
/// with SIGSYS: exec, ptrace, mounting, namespaces, loading kernel code, keyrings, signals to other
/// processes. Any other call fails with EPERM: LibreOffice goes on without it.
int glance_sandbox_enter_office(void);

/// Confines this process's file access with Landlock, for itself and the threads and processes
/// it starts from now on (an office renderer calls it before it starts LibreOffice): files and
/// folders beneath `readable` may be read and executed, devices beneath `devices` read and
/// written, and beneath `writable` anything may be done; every other path is refused (EACCES),
/// whatever the file's permissions. Paths that do not exist are passed over.
///
/// Returns 0, or a negative errno value: -ENOSYS or -EOPNOTSUPP where the kernel has no Landlock.
int glance_landlock_confine(const char *const *readable, size_t readable_count, const char *const *writable,
                            size_t writable_count, const char *const *devices, size_t device_count);

/// The signal the kernel kills a process with when it breaks its filter (SIGSYS).
int glance_sandbox_violation_signal(void);

#endif
