// See include/glance_sandbox.h (glance_landlock_confine).
#define _GNU_SOURCE
#include "glance_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

// Every file-system right an ABI version knows (1: 13 rights; 2: REFER; 3: TRUNCATE; 5: IOCTL_DEV).
static uint64_t handled_rights(int abi) {
    uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;
    if (abi >= 2) rights |= (uint64_t)1 << 13;  // LANDLOCK_ACCESS_FS_REFER
    if (abi >= 3) rights |= (uint64_t)1 << 14;  // LANDLOCK_ACCESS_FS_TRUNCATE
    if (abi >= 5) rights |= (uint64_t)1 << 15;  // LANDLOCK_ACCESS_FS_IOCTL_DEV
    return rights;
}

// Adds a rule giving `rights` (those of them the ruleset handles) beneath `path`; a path that does
// not exist is passed over. Returns 0 or a negative errno value.
static int allow_beneath(int ruleset, const char *path, uint64_t rights, uint64_t handled) {
    int folder = open(path, O_PATH | O_CLOEXEC);
    if (folder < 0) return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -errno;
    struct landlock_path_beneath_attr rule = {.allowed_access = rights & handled, .parent_fd = folder};
    int status = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    int error = errno;
    close(folder);
    return status == 0 ? 0 : -error;
}

int glance_landlock_confine(const char *const *readable, size_t readable_count, const char *const *writable,
                            size_t writable_count, const char *const *devices, size_t device_count) {
    int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) return -(errno ? errno : ENOSYS);
    uint64_t handled = handled_rights(abi);
    struct landlock_ruleset_attr attributes = {.handled_access_fs = handled};
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attributes, sizeof attributes, 0);
    if (ruleset < 0) return -errno;
    const uint64_t read = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    const uint64_t device = read | LANDLOCK_ACCESS_FS_WRITE_FILE | ((uint64_t)1 << 15);
    int status = 0;
    for (size_t i = 0; status == 0 && i < readable_count; i++) status = allow_beneath(ruleset, readable[i], read, handled);
    for (size_t i = 0; status == 0 && i < device_count; i++) status = allow_beneath(ruleset, devices[i], device, handled);
    for (size_t i = 0; status == 0 && i < writable_count; i++)
        status = allow_beneath(ruleset, writable[i], handled, handled);
    if (status == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) status = -errno;
    if (status == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) status = -errno;
    close(ruleset);
    return status;
}
