// See include/glance_digest.h.
#include "glance_digest.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

// libcrypto is loaded on first use, not linked: `glance` computes no digest in most runs (the
// workers do), and mapping and relocating libcrypto took about 1.5 ms of CPU at every start of
// every command. Only its types come from the headers.
//
// SHA-256 goes through libcrypto's direct functions (deprecated since OpenSSL 3.0, still there in
// 3.x), not EVP: the first EVP digest of a process initialises OpenSSL's providers and fetches the
// algorithm, 0.9 ms of CPU measured, paid by every worker on its first document. The direct
// functions run the same block code (SHA extensions, AVX2), at the same speed (1.7 GB/s both).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/md5.h>
#include <openssl/sha.h>

#include "glance_library_loader.h"

/// The library's soname: OpenSSL 3's.
static const char library_name[] = "libcrypto.so.3";

/// libcrypto's functions, found once by `load_library` and read-only after it.
static struct {
    int (*sha256_init)(SHA256_CTX *context);
    int (*sha256_update)(SHA256_CTX *context, const void *data, size_t length);
    int (*sha256_final)(unsigned char *digest, SHA256_CTX *context);
    unsigned char *(*md5)(const unsigned char *data, size_t length, unsigned char *digest);
} crypto;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;

static void load_library(void) {
    static const char *const names[] = {"SHA256_Init", "SHA256_Update", "SHA256_Final", "MD5"};
    void **const slots[] = {(void **)&crypto.sha256_init, (void **)&crypto.sha256_update,
                            (void **)&crypto.sha256_final, (void **)&crypto.md5};
    char reason[256];  // the callers' errno (ELIBACC) says enough
    loaded = glance_library_load(library_name, names, slots, sizeof names / sizeof names[0], reason, sizeof reason);
}

/// Whether libcrypto's functions are ready (loading it the first time).
static int crypto_ready(void) {
    pthread_once(&load_once, load_library);
    return loaded;
}

int glance_sha256_descriptor(int descriptor, uint8_t digest[32], uint64_t *length) {
    *length = 0;
    if (!crypto_ready()) return ELIBACC;
    enum { chunk_size = 256 * 1024 };
    unsigned char *chunk = malloc(chunk_size);
    if (chunk == NULL) return ENOMEM;
    SHA256_CTX context;
    if (crypto.sha256_init(&context) != 1) {
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
        if (crypto.sha256_update(&context, chunk, (size_t)count) != 1) {
            status = EIO;
            break;
        }
        total += (uint64_t)count;
    }
    if (status == 0 && crypto.sha256_final(digest, &context) != 1) status = EIO;
    free(chunk);
    *length = total;
    return status;
}

int glance_md5(const void *bytes, size_t length, uint8_t digest[16]) {
    if (!crypto_ready()) return ELIBACC;
    return crypto.md5(bytes, length, digest) != NULL ? 0 : EIO;
}
