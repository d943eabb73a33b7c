#ifndef GLANCE_PASSWORD_H
#define GLANCE_PASSWORD_H

#include <stddef.h>

/// Hashes `password` with libxcrypt's preferred method (yescrypt, a fresh random salt) into `out`
/// (at least 256 bytes). Returns 0, or -1 with errno set.
int glance_password_hash(const char *password, char *out, size_t capacity);

/// Whether `password` hashes to `hash` (any method libxcrypt knows): 1 yes, 0 no. The hashes are
/// compared in time that does not depend on where they differ.
int glance_password_matches(const char *password, const char *hash);

#endif
