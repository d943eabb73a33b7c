// See include/glance_file_access.h.
#define _GNU_SOURCE
#include "glance_file_access.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

_Static_assert(sizeof(struct open_how) == 24, "struct open_how as of Linux 5.6");

/// The fallback for kernels without openat2: one component at a time, never following a link,
/// refusing `..` and absolute paths outright.
static int open_beneath_by_components(int directory, const char *path, int flags) {
    if (path[0] == '/') {
        errno = EXDEV;
        return -1;
    }
    char *copy = strdup(path);
    if (copy == NULL) return -1;
    int current = dup(directory);
    if (current < 0) {
        free(copy);
        return -1;
    }
    char *save = NULL;
    char *component = strtok_r(copy, "/", &save);
    while (component != NULL) {
        char *next = strtok_r(NULL, "/", &save);
        if (strcmp(component, "..") == 0) {
            close(current);
            free(copy);
            errno = EXDEV;
            return -1;
        }
        int opened = next == NULL
            ? openat(current, component, flags | O_NOFOLLOW | O_CLOEXEC)
            : openat(current, component, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int saved = errno;
        close(current);
        if (opened < 0) {
            free(copy);
            errno = saved;
            return -1;
        }
        current = opened;
        component = next;
    }
    free(copy);
    return current;
}

/// openat2 beneath `directory` with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS and `extra` resolve
/// flags, retried on EINTR and EAGAIN; the component walk where the kernel has no openat2.
static int open_beneath_resolving(int directory, const char *path, int flags, unsigned long long extra) {
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (unsigned long long)(flags | O_CLOEXEC);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | extra;
    long result;
    do {
        result = syscall(SYS_openat2, directory, path, &how, sizeof how);
    } while (result < 0 && (errno == EINTR || errno == EAGAIN));
    if (result < 0 && errno == ENOSYS) return open_beneath_by_components(directory, path, flags);
    return (int)result;
}

int glance_open_beneath(int directory, const char *path, int flags) {
    return open_beneath_resolving(directory, path, flags, 0);
}

// The fallback (the component walk) follows no link either.
int glance_open_beneath_without_links(int directory, const char *path, int flags) {
    return open_beneath_resolving(directory, path, flags, RESOLVE_NO_SYMLINKS);
}

int glance_path_only_flag(void) { return O_PATH; }

long glance_descriptor_path(int descriptor, char *buffer, size_t capacity) {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", descriptor);
    ssize_t length = readlink(link, buffer, capacity);
    if (length < 0) return -1;
    if ((size_t)length >= capacity) {
        errno = ENAMETOOLONG;
        return -1;
    }
    buffer[length] = 0;
    return (long)length;
}

int glance_stat_beneath(int directory, const char *path, struct stat *status) {
    int opened = glance_open_beneath(directory, path, O_PATH);
    if (opened < 0) return -1;
    int result = fstat(opened, status);
    int saved = errno;
    close(opened);
    errno = saved;
    return result;
}

long glance_send_with_descriptor(int socket, const void *bytes, size_t length, int descriptor) {
    struct iovec part = {.iov_base = (void *)bytes, .iov_len = length};
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    if (descriptor >= 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.buffer;
        message.msg_controllen = sizeof control.buffer;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
    }
    ssize_t sent;
    do {
        sent = sendmsg(socket, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return (long)sent;
}

long glance_receive_with_descriptor(int socket, void *bytes, size_t capacity, int *descriptor) {
    *descriptor = -1;
    struct iovec part = {.iov_base = bytes, .iov_len = capacity};
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    union {
        char buffer[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } control;
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof control.buffer;
    ssize_t received;
    do {
        received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    } while (received < 0 && errno == EINTR);
    if (received < 0) return -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL;
         header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t index = 0; index < count; index++) {
            int received_descriptor;
            memcpy(&received_descriptor, CMSG_DATA(header) + index * sizeof(int), sizeof(int));
            if (*descriptor < 0) {
                *descriptor = received_descriptor;
            } else {
                close(received_descriptor);
            }
        }
    }
    if (message.msg_flags & MSG_CTRUNC) {
        if (*descriptor >= 0) close(*descriptor);
        *descriptor = -1;
        errno = EBADMSG;
        return -1;
    }
    return (long)received;
}

int glance_socketpair_cloexec(int ends[2]) { return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends); }

FILE *glance_stream_from_start(int descriptor) {
    int copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0);
    if (copy < 0) return NULL;
    FILE *file = fdopen(copy, "rb");
    if (file == NULL) {
        int saved = errno;
        close(copy);
        errno = saved;
        return NULL;
    }
    // libjpeg asks for 4 KiB at a time, which stdio's default buffer (the block size, 4 KiB)
    // turns into one read(2) each: 1,300 system calls for a 5 MB photo. A 256 KiB buffer makes
    // them 20.
    if (setvbuf(file, NULL, _IOFBF, 256 << 10) != 0 || fseeko(file, 0, SEEK_SET) != 0) {
        int saved = errno;
        fclose(file);
        errno = saved;
        return NULL;
    }
    return file;
}

int glance_memory_file(const void *bytes, size_t length) {
    int descriptor = memfd_create("glance-bytes", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (descriptor < 0) return -1;
    const char *next = bytes;
    size_t left = length;
    while (left > 0) {
        ssize_t written = write(descriptor, next, left);
        if (written < 0) {
            if (errno == EINTR) continue;
            int saved = errno;
            close(descriptor);
            errno = saved;
            return -1;
        }
        next += written;
        left -= (size_t)written;
    }
    fcntl(descriptor, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    lseek(descriptor, 0, SEEK_SET);
    return descriptor;
}
