// See include/glance_store_folder.h.
#define _GNU_SOURCE
#include "glance_store_folder.h"

#include <fcntl.h>

#include <pthread.h>
#include <sqlite3.h>
#include <string.h>

/// The VFS: a copy of the unix VFS with its own name and file-name rule.
static sqlite3_vfs folder_vfs;
static pthread_once_t register_once = PTHREAD_ONCE_INIT;
static int registered;

static const char vfs_name[] = "glance-folder";

/// SQLite's xFullPathname: an absolute name stays as it is (its links unresolved); a relative
/// one is refused, since the store always names its database absolutely.
static int full_pathname(sqlite3_vfs *vfs, const char *name, int capacity, char *out) {
    (void)vfs;
    size_t length = strlen(name);
    if (name[0] != '/' || capacity <= 0 || length + 1 > (size_t)capacity) return SQLITE_CANTOPEN;
    memcpy(out, name, length + 1);
    return SQLITE_OK;
}

static void register_vfs(void) {
    sqlite3_vfs *unix_vfs = sqlite3_vfs_find("unix");
    if (unix_vfs == NULL) return;
    folder_vfs = *unix_vfs;
    folder_vfs.pNext = NULL;
    folder_vfs.zName = vfs_name;
    folder_vfs.xFullPathname = full_pathname;
    registered = sqlite3_vfs_register(&folder_vfs, 0) == SQLITE_OK;
}

const char *glance_store_folder_vfs(void) {
    pthread_once(&register_once, register_vfs);
    return registered ? vfs_name : NULL;
}

int glance_store_folder_open_path(const char *path) {
    return open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}
