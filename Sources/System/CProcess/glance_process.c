// See include/glance_process.h.
#define _GNU_SOURCE
#include "glance_process.h"

#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <unistd.h>

int glance_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int glance_die_with_parent(void) {
    pid_t parent = getppid();
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    // The parent may have died before prctl took effect: then we were re-parented already.
    return getppid() == parent ? 0 : -1;
}

int glance_reuse_freed_memory(int kept_bytes) {
    return mallopt(M_MMAP_MAX, 0) && mallopt(M_TRIM_THRESHOLD, kept_bytes);
}

void glance_return_freed_memory(void) { malloc_trim(0); }

int glance_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}
