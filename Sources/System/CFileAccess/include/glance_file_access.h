// C shim for opening files so that a path cannot be swapped under the opener, and for handing
// an open file to another process. Swift's Glibc module exposes neither openat2 (no glibc
// wrapper exists) nor the CMSG_* macros that SCM_RIGHTS messages are built with.
#ifndef GLANCE_FILE_ACCESS_H
#define GLANCE_FILE_ACCESS_H

#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

/// Opens `path`, relative to the folder `directory`, without ever leaving that folder:
/// openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS. `..` that climbs out, an absolute
/// path, an absolute symlink or a relative one that leads out all fail with EXDEV; symlinks that
/// stay inside are followed. `flags` are open(2) flags (O_CLOEXEC is always added).
///
/// On kernels without openat2 (before 5.6: ENOSYS) the path is walked one component at a time
/// with openat(O_NOFOLLOW): safe, but then no symlink is followed at all (ELOOP).
/// Returns the descriptor, or -1 with errno set.
int glance_open_beneath(int directory, const char *path, int flags);

/// As glance_open_beneath, but a symbolic link anywhere on the way fails (ELOOP): what opens is
/// the file the path names itself, so a rule on the path's components holds for the file.
int glance_open_beneath_without_links(int directory, const char *path, int flags);

/// O_PATH, which Swift's Glibc module does not show (it needs _GNU_SOURCE).
int glance_path_only_flag(void);

/// The path of the file open at `descriptor` now, as the kernel knows it (readlink of
/// /proc/self/fd/N), NUL-terminated in `buffer`; its length, or -1 with errno set (ENAMETOOLONG
/// when it does not fit).
long glance_descriptor_path(int descriptor, char *buffer, size_t capacity);

/// `fstat` of what `path` leads to beneath `directory` (as glance_open_beneath resolves it),
/// opened with O_PATH: a FIFO does not block and no content is opened. Returns 0, or -1 with
/// errno set.
int glance_stat_beneath(int directory, const char *path, struct stat *status);

/// A stdio stream reading the file open at `descriptor` from its start, on a descriptor of its
/// own (the caller keeps and closes `descriptor`; fclose closes the copy). For decoders that read
/// through stdio (libjpeg, libpng). NULL with errno set on failure.
FILE *glance_stream_from_start(int descriptor);

/// Sends `length` bytes of `bytes` on the Unix socket `socket`, with the descriptor
/// `descriptor` attached (SCM_RIGHTS) unless it is negative. Returns the bytes sent, or -1 with
/// errno set. The receiver gets its own descriptor for the same open file.
long glance_send_with_descriptor(int socket, const void *bytes, size_t length, int descriptor);

/// Receives up to `capacity` bytes from the Unix socket `socket` into `bytes`; a descriptor
/// that came with them is stored in `*descriptor` (close-on-exec), else -1 is. Descriptors
/// beyond the first in one message are closed. Returns the bytes received (0 at the end), or -1
/// with errno set. A message whose descriptors did not fit (MSG_CTRUNC) fails with EBADMSG.
long glance_receive_with_descriptor(int socket, void *bytes, size_t capacity, int *descriptor);

/// socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC): both ends closed in every child at exec.
int glance_socketpair_cloexec(int ends[2]);

/// A sealed, read-only file in memory holding a copy of `length` bytes (memfd_create): lets a
/// worker read bytes the coordinator holds (a stored thumbnail) through the same descriptor
/// protocol as a document. Returns the descriptor (close-on-exec, offset 0), or -1 with errno.
int glance_memory_file(const void *bytes, size_t length);

#endif
