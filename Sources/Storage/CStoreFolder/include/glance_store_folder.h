// C shim that lets SQLite open the sidecar's files through a folder held open by descriptor, so
// that the folder cannot be swapped for another (a link, a planted folder) between the checks
// Glance makes on it and SQLite's opening of the database, its -wal and its -shm.
#ifndef GLANCE_STORE_FOLDER_H
#define GLANCE_STORE_FOLDER_H

/// Registers (once; later calls do nothing) a SQLite VFS named by the returned string: the
/// default `unix` VFS in every respect but one, it takes an absolute file name as it is given
/// instead of resolving the links in it. A database named `/proc/self/fd/N/thumbnails.sqlite`
/// through it is opened, with its -wal and -shm, inside the folder that descriptor N holds open,
/// wherever that folder is now and whatever now stands at its old path (the unix VFS would
/// resolve `/proc/self/fd/N` to the folder's path, as text, and open whatever is there).
/// Returns NULL when SQLite has no `unix` VFS or refuses the registration.
const char *glance_store_folder_vfs(void);

/// Opens the folder `path` for naming its files only (O_PATH: no read permission needed, as
/// opening a file inside it by path needs none), without following a link. Returns the
/// descriptor, or -1 with errno set.
int glance_store_folder_open_path(const char *path);

#endif
