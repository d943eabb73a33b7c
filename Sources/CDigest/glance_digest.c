// See include/glance_digest.h.
#include "glance_digest.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

// SHA-256 through libcrypto's direct functions (deprecated since OpenSSL 3.0, still there in
// 3.x), not EVP: the first EVP digest of a process initialises OpenSSL's providers and fetches the
// algorithm, 0.9 ms of CPU measured, paid by every worker on its first document. The direct
// functions run the same block code (SHA extensions, AVX2), at the same speed (1.7 GB/s both).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/sha.h>

int glance_sha256_descriptor(int descriptor, uint8_t digest[32], uint64_t *length) {
    enum { chunk_size = 256 * 1024 };
    unsigned char *chunk = malloc(chunk_size);
    if (chunk == NULL) return ENOMEM;
    SHA256_CTX context;
    if (SHA256_Init(&context) != 1) {
        free(chunk);
        return EIO;
    }
    uint64_t total = 0;
    int status = 0;
    for (;;) {
        ssize_t count = pread(descriptor, chunk, chunk_size, (off_t)total);
        if (count < 0) {
            if (errno == EINTR) continue;
            status = errno;
            break;
        }
        if (count == 0) break;
        if (SHA256_Update(&context, chunk, (size_t)count) != 1) {
            status = EIO;
            break;
        }
        total += (uint64_t)count;
    }
    if (status == 0 && SHA256_Final(digest, &context) != 1) status = EIO;
    free(chunk);
    *length = total;
    return status;
}

int glance_md5(const void *bytes, size_t length, uint8_t digest[16]) {
    unsigned int written = 0;
    if (EVP_Digest(bytes, length, digest, &written, EVP_md5(), NULL) != 1 || written != 16) return EIO;
    return 0;
}
