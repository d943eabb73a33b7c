// See include/glance_watch.h.
#define _GNU_SOURCE
#include "glance_watch.h"

#include <sys/socket.h>

#include <fcntl.h>
#include <string.h>
#include <sys/inotify.h>

_Static_assert(GLANCE_WATCH_CLOSE_WRITE == IN_CLOSE_WRITE, "IN_CLOSE_WRITE");
_Static_assert(GLANCE_WATCH_MOVED_FROM == IN_MOVED_FROM, "IN_MOVED_FROM");
_Static_assert(GLANCE_WATCH_MOVED_TO == IN_MOVED_TO, "IN_MOVED_TO");
_Static_assert(GLANCE_WATCH_CREATE == IN_CREATE, "IN_CREATE");
_Static_assert(GLANCE_WATCH_DELETE == IN_DELETE, "IN_DELETE");
_Static_assert(GLANCE_WATCH_DELETE_SELF == IN_DELETE_SELF, "IN_DELETE_SELF");
_Static_assert(GLANCE_WATCH_MOVE_SELF == IN_MOVE_SELF, "IN_MOVE_SELF");
_Static_assert(GLANCE_WATCH_OVERFLOW == IN_Q_OVERFLOW, "IN_Q_OVERFLOW");
_Static_assert(GLANCE_WATCH_IGNORED == IN_IGNORED, "IN_IGNORED");
_Static_assert(GLANCE_WATCH_IS_FOLDER == IN_ISDIR, "IN_ISDIR");

int glance_watch_open(void) { return inotify_init1(IN_NONBLOCK | IN_CLOEXEC); }

int glance_watch_add(int watcher, const char *path) {
    return inotify_add_watch(watcher, path,
                             IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_DELETE_SELF |
                                 IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK);
}

int glance_watch_hold_folder(const char *path) {
    return open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int glance_watch_next(const uint8_t *buffer, size_t length, size_t *offset, int32_t *descriptor, uint32_t *mask,
                      uint32_t *cookie, const char **name) {
    if (*offset + sizeof(struct inotify_event) > length) return -1;
    struct inotify_event header;
    memcpy(&header, buffer + *offset, sizeof header);
    size_t size = sizeof(struct inotify_event) + header.len;
    if (*offset + size > length) return -1;
    *descriptor = header.wd;
    *mask = header.mask;
    *cookie = header.cookie;
    *name = header.len > 0 ? (const char *)(buffer + *offset + sizeof(struct inotify_event)) : "";
    *offset += size;
    return 0;
}

int glance_accept_cloexec(int socket) { return accept4(socket, NULL, NULL, SOCK_CLOEXEC); }

int glance_peer_uid(int socket, uint32_t *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    return 0;
}
