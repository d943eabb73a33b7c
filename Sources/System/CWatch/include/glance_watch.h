// C shim for inotify: the flags and the variable-length event records that Swift cannot
// describe (struct inotify_event ends in a flexible array member).
#ifndef GLANCE_WATCH_H
#define GLANCE_WATCH_H

#include <stddef.h>
#include <stdint.h>

/// What a watch reports, as plain bits (the IN_* values, which the header defines as macros
/// built from other macros that Swift does not import).
enum {
    GLANCE_WATCH_CLOSE_WRITE = 0x00000008,
    GLANCE_WATCH_MOVED_FROM = 0x00000040,
    GLANCE_WATCH_MOVED_TO = 0x00000080,
    GLANCE_WATCH_CREATE = 0x00000100,
    GLANCE_WATCH_DELETE = 0x00000200,
    GLANCE_WATCH_DELETE_SELF = 0x00000400,
    GLANCE_WATCH_MOVE_SELF = 0x00000800,
    GLANCE_WATCH_OVERFLOW = 0x00004000,
    GLANCE_WATCH_IGNORED = 0x00008000,
    GLANCE_WATCH_IS_FOLDER = 0x40000000,
};

/// inotify_init1(IN_NONBLOCK | IN_CLOEXEC). Returns the descriptor, or -1 with errno set.
int glance_watch_open(void);

/// Watches the folder `path` (not following a symlink, folders only) for the events Glance needs:
/// close-after-write, moves in and out, creation, deletion, and the folder's own deletion or
/// move. Returns the watch descriptor, or -1 with errno set (ENOSPC: fs.inotify.max_user_watches
/// reached).
int glance_watch_add(int watcher, const char *path);

/// Holds the folder `path` (O_PATH | O_DIRECTORY | O_CLOEXEC, not following a last symlink):
/// nothing is read through it; fstat on it tells whether the folder has been deleted. Returns
/// the descriptor, or -1 with errno set.
int glance_watch_hold_folder(const char *path);

/// One event of a buffer that read() filled: the event at `*offset` of `buffer` (`length` bytes)
/// is described through the out-parameters and `*offset` moves past it. Returns 0, or -1 when
/// no whole event is left. `*name` points into `buffer` (NUL-terminated, may be empty).
int glance_watch_next(const uint8_t *buffer, size_t length, size_t *offset, int32_t *descriptor, uint32_t *mask,
                      uint32_t *cookie, const char **name);

/// accept4(socket, NULL, NULL, SOCK_CLOEXEC): a connection no renderer process inherits (accept
/// then fcntl would leave a window in which a worker started by another thread does). glibc
/// declares accept4 only under _GNU_SOURCE. Returns the descriptor, or -1 with errno set.
int glance_accept_cloexec(int socket);

/// The user id of the process at the other end of the Unix socket `socket` (SO_PEERCRED, whose
/// struct ucred glibc declares only under _GNU_SOURCE) in `*uid`. Returns 0, or -1 with errno set.
int glance_peer_uid(int socket, uint32_t *uid);

#endif
