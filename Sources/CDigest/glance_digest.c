// See include/glance_digest.h.
#include "glance_digest.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/evp.h>

int glance_sha256_descriptor(int descriptor, uint8_t digest[32], uint64_t *length) {
    enum { chunk_size = 256 * 1024 };
    unsigned char *chunk = malloc(chunk_size);
    if (chunk == NULL) return ENOMEM;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL || EVP_DigestInit_ex(context, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(context);
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
        if (EVP_DigestUpdate(context, chunk, (size_t)count) != 1) {
            status = EIO;
            break;
        }
        total += (uint64_t)count;
    }
    unsigned int written = 0;
    if (status == 0 && (EVP_DigestFinal_ex(context, digest, &written) != 1 || written != 32)) status = EIO;
    EVP_MD_CTX_free(context);
    free(chunk);
    *length = total;
    return status;
}

int glance_md5(const void *bytes, size_t length, uint8_t digest[16]) {
    unsigned int written = 0;
    if (EVP_Digest(bytes, length, digest, &written, EVP_md5(), NULL) != 1 || written != 16) return EIO;
    return 0;
}
