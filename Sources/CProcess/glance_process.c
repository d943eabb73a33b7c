// See include/glance_process.h.
#define _GNU_SOURCE
#include "glance_process.h"

#include <fcntl.h>
#include <unistd.h>

int glance_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
