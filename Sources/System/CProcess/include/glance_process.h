// C shim for process plumbing that Swift's Glibc module does not expose.
#ifndef GLANCE_PROCESS_H
#define GLANCE_PROCESS_H

/// pipe2(fds, O_CLOEXEC): a pipe whose ends are closed in every child at exec, created
/// atomically. (pipe + fcntl leaves a window in which a worker started by another thread
/// inherits the ends, and a worker's death then goes unnoticed.) glibc declares pipe2 only under
/// _GNU_SOURCE, which Swift's Glibc module is not built with.
int glance_pipe_cloexec(int fds[2]);

/// Asks the kernel to SIGKILL this process when its parent dies (prctl PR_SET_PDEATHSIG), so
/// that workers never outlive a batch that was killed with `kill -9`. Returns -1 if the parent
/// is already gone. (prctl is variadic: Swift cannot call it.)
int glance_die_with_parent(void);

/// mallopt(M_MMAP_MAX, 0) and mallopt(M_TRIM_THRESHOLD, kept_bytes): every block, however large,
/// comes from the heap, and up to `kept_bytes` of freed heap is kept rather than given back. A
/// worker's next document then reuses the pages of the last one's buffers instead of having the
/// kernel map and zero fresh ones. (malloc.h is not part of Swift's Glibc module.) Returns 1 on
/// success.
int glance_reuse_freed_memory(int kept_bytes);

/// malloc_trim(0): gives every whole free page of the heap back to the system.
void glance_return_freed_memory(void);

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np(actions, lowest): the child closes every descriptor
/// from `lowest` up before it runs. A worker must inherit nothing but its socket: not another
/// worker's socket (its death would go unnoticed), not a pipe the parent reads to its end
/// (the reader would wait for an end that never comes), not an open document. glibc declares it
/// only under _GNU_SOURCE (glibc 2.34 and later). Returns 0 or an error number.
int glance_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
