// C shim for the content fingerprint of a file (zlib's checksums).
#ifndef GLANCE_DIGEST_H
#define GLANCE_DIGEST_H

#include <stdint.h>

/// Reads the file at `path` in 256 KiB chunks and computes its CRC-32 and Adler-32 (zlib's,
/// which run at several GB/s). Returns 0 on success, or an errno value.
int glance_digest_file(const char *path, uint32_t *crc, uint32_t *adler, uint64_t *length);

#endif
