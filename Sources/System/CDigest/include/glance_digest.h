// C shim for the content digest of a document: SHA-256 on the CPU's SHA extensions, or from
// OpenSSL's libcrypto without them, which is loaded (`libcrypto.so.3`) the first time it is
// needed, not when a process starts.
#ifndef GLANCE_DIGEST_H
#define GLANCE_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/// Reads the file open at `descriptor` from its start (pread: the descriptor's offset is left
/// alone) in 256 KiB chunks and computes its SHA-256 into `digest`, and its length: on the CPU's
/// SHA extensions where it has them, else by libcrypto (its AVX2 code). Returns 0 on success, or
/// an errno value (EIO if libcrypto itself failed, ELIBACC if it could not be loaded).
int glance_sha256_descriptor(int descriptor, uint8_t digest[32], uint64_t *length);

/// Whether SHA-256 runs on this CPU's SHA extensions, without libcrypto.
int glance_sha256_has_cpu_extensions(void);

/// The SHA-256 of `length` bytes at `bytes`, on the CPU's SHA extensions (`with_cpu_extensions`
/// 1; ENOTSUP where there are none) or by libcrypto (0), for checking one against the other.
int glance_sha256_bytes(const void *bytes, size_t length, int with_cpu_extensions, uint8_t digest[32]);

/// The MD5 of `length` bytes at `bytes` into `digest` (the freedesktop.org thumbnail cache names
/// its files by the MD5 of a URI; not used for anything that needs a secure hash). Returns 0, or
/// EIO if libcrypto failed, ELIBACC if it could not be loaded.
int glance_md5(const void *bytes, size_t length, uint8_t digest[16]);

#endif
