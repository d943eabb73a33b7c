// See include/glance_digest.h.
#include "glance_digest.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// libcrypto is loaded on first use, not linked: `glance` computes no digest in most runs (the
// workers do), and mapping and relocating libcrypto took about 1.5 ms of CPU at every start of
// every command. Only its types come from the headers.
//
// On a CPU with the SHA extensions, SHA-256 does not need libcrypto at all: the block function
// below runs them directly, as fast as libcrypto does, and a worker no longer loads and relocates
// libcrypto (4.7 MB, about 1 ms of CPU) for its first document. Without them, libcrypto's
// AVX2 code is twice as fast as plain C would be, and is used.
//
// SHA-256 goes through libcrypto's direct functions (deprecated since OpenSSL 3.0, still there in
// 3.x), not EVP: the first EVP digest of a process initialises OpenSSL's providers and fetches the
// algorithm, 0.9 ms of CPU measured, paid by every worker on its first document. The direct
// functions run the same block code (SHA extensions, AVX2), at the same speed (1.7 GB/s both).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/md5.h>
#include <openssl/sha.h>

#include "glance_library_loader.h"
#include "glance_processor_features.h"

// --- SHA-256 on the CPU's SHA extensions -----------------------------------------------------

// FIPS 180-4's constants: the first 32 bits of the fractional parts of the cube roots of the
// first 64 primes, and of the square roots of the first 8.
static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};
static const uint32_t initial_state[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

#if defined(__x86_64__)
/// Whether the digest may use the SHA extensions (with SSSE3 and SSE4.1, which the block function
/// also uses): see glance_processor_features.h.
static int has_sha_extensions(void) { return (glance_processor_features() & GLANCE_FEATURE_SHA) != 0; }

/// Runs `count` 64-byte blocks at `data` through the compression function. The instructions keep
/// the eight working words as two vectors, ABEF and CDGH (A in the top lane); each
/// `sha256rnds2` does two rounds, and `sha256msg1`/`sha256msg2` extend the message schedule four
/// words at a time: W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16].
__attribute__((target("sha,ssse3,sse4.1"))) static void sha256_blocks(uint32_t state[8], const uint8_t *data,
                                                                     size_t count) {
    const __m128i big_endian = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    __m128i abcd = _mm_loadu_si128((const __m128i *)&state[0]);   // lanes a b c d
    __m128i efgh = _mm_loadu_si128((const __m128i *)&state[4]);   // lanes e f g h
    abcd = _mm_shuffle_epi32(abcd, 0xB1);                         // b a d c
    efgh = _mm_shuffle_epi32(efgh, 0x1B);                         // h g f e
    __m128i abef = _mm_alignr_epi8(abcd, efgh, 8);                // f e b a
    __m128i cdgh = _mm_blend_epi16(efgh, abcd, 0xF0);             // h g d c
    for (; count > 0; count--, data += 64) {
        const __m128i saved_abef = abef, saved_cdgh = cdgh;
        __m128i words[4];   // the schedule's last 16 words, four to a vector, group i in words[i % 4]
        // Unrolled, so that the four vectors stay in registers.
#pragma clang loop unroll(full)
        for (int group = 0; group < 16; group++) {
            __m128i *current = &words[group % 4];
            if (group < 4) {
                *current = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * group)), big_endian);
            } else {
                const __m128i before = words[(group + 3) % 4];   // group - 1
                __m128i next = _mm_sha256msg1_epu32(*current, words[(group + 1) % 4]);
                next = _mm_add_epi32(next, _mm_alignr_epi8(before, words[(group + 2) % 4], 4));
                *current = _mm_sha256msg2_epu32(next, before);
            }
            __m128i scheduled = _mm_add_epi32(*current, _mm_loadu_si128((const __m128i *)&round_constants[4 * group]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, scheduled);
            scheduled = _mm_shuffle_epi32(scheduled, 0x0E);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, scheduled);
        }
        abef = _mm_add_epi32(abef, saved_abef);
        cdgh = _mm_add_epi32(cdgh, saved_cdgh);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);    // a b e f
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);    // g h c d
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));   // a b c d
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));      // e f g h
}
#else
static int has_sha_extensions(void) { return 0; }
static void sha256_blocks(uint32_t state[8], const uint8_t *data, size_t count) {
    (void)state, (void)data, (void)count;
}
#endif

/// A SHA-256 being computed by `sha256_blocks`.
typedef struct {
    uint32_t state[8];
    uint8_t pending[64];   // bytes of an incomplete block
    size_t pending_count;
    uint64_t length;
} sha256_context;

static void sha256_start(sha256_context *context) {
    memcpy(context->state, initial_state, sizeof initial_state);
    context->pending_count = 0;
    context->length = 0;
}

static void sha256_add(sha256_context *context, const uint8_t *bytes, size_t count) {
    context->length += count;
    if (context->pending_count > 0) {
        size_t taken = 64 - context->pending_count < count ? 64 - context->pending_count : count;
        memcpy(context->pending + context->pending_count, bytes, taken);
        context->pending_count += taken;
        bytes += taken;
        count -= taken;
        if (context->pending_count < 64) return;
        sha256_blocks(context->state, context->pending, 1);
        context->pending_count = 0;
    }
    sha256_blocks(context->state, bytes, count / 64);
    memcpy(context->pending, bytes + count / 64 * 64, count % 64);
    context->pending_count = count % 64;
}

/// Pads the message (a 1 bit, zeros, its length in bits, big-endian) and writes the digest.
static void sha256_finish(sha256_context *context, uint8_t digest[32]) {
    uint64_t bits = context->length * 8;
    uint8_t padding[72] = {0x80};
    size_t padding_count = (context->pending_count < 56 ? 56 : 120) - context->pending_count;
    for (int index = 0; index < 8; index++) padding[padding_count + index] = (uint8_t)(bits >> (56 - 8 * index));
    sha256_add(context, padding, padding_count + 8);
    for (int index = 0; index < 8; index++) {
        uint32_t word = context->state[index];
        digest[4 * index] = (uint8_t)(word >> 24);
        digest[4 * index + 1] = (uint8_t)(word >> 16);
        digest[4 * index + 2] = (uint8_t)(word >> 8);
        digest[4 * index + 3] = (uint8_t)word;
    }
}

// --- libcrypto ---------------------------------------------------------------------------

/// libcrypto's functions, typed by its headers, found once and read-only after. The soname:
/// OpenSSL 3's.
#define CRYPTO_FUNCTIONS(X)                       \
    GLANCE_TYPED(X, sha256_init, SHA256_Init)     \
    GLANCE_TYPED(X, sha256_update, SHA256_Update) \
    GLANCE_TYPED(X, sha256_final, SHA256_Final)   \
    GLANCE_TYPED(X, md5, MD5)

GLANCE_LIBRARY(crypto, "libcrypto.so.3", CRYPTO_FUNCTIONS, GLANCE_LIBRARY_NO_START)

/// Whether libcrypto's functions are ready (loading it the first time). The loader's reason goes
/// unreported: the callers' status (ELIBACC) says enough.
static int crypto_ready(void) { return crypto_ensure(NULL, 0); }

/// One SHA-256, by the block function above or by libcrypto.
typedef struct {
    int own;
    sha256_context own_context;
    SHA256_CTX library_context;
} sha256_any;

static int sha256_any_start(sha256_any *hash, int own) {
    hash->own = own;
    if (own) {
        sha256_start(&hash->own_context);
        return 0;
    }
    if (!crypto_ready()) return ELIBACC;
    return crypto.sha256_init(&hash->library_context) == 1 ? 0 : EIO;
}

static int sha256_any_add(sha256_any *hash, const uint8_t *bytes, size_t count) {
    if (hash->own) {
        sha256_add(&hash->own_context, bytes, count);
        return 0;
    }
    return crypto.sha256_update(&hash->library_context, bytes, count) == 1 ? 0 : EIO;
}

static int sha256_any_finish(sha256_any *hash, uint8_t digest[32]) {
    if (hash->own) {
        sha256_finish(&hash->own_context, digest);
        return 0;
    }
    return crypto.sha256_final(digest, &hash->library_context) == 1 ? 0 : EIO;
}

static pthread_once_t extensions_once = PTHREAD_ONCE_INIT;
static int extensions;

static void find_extensions(void) { extensions = has_sha_extensions(); }

int glance_sha256_has_cpu_extensions(void) {
    pthread_once(&extensions_once, find_extensions);
    return extensions;
}

int glance_sha256_descriptor(int descriptor, uint8_t digest[32], uint64_t *length) {
    *length = 0;
    sha256_any hash;
    int status = sha256_any_start(&hash, glance_sha256_has_cpu_extensions());
    if (status != 0) return status;
    enum { chunk_size = 256 * 1024 };
    unsigned char *chunk = malloc(chunk_size);
    if (chunk == NULL) return ENOMEM;
    uint64_t total = 0;
    for (;;) {
        ssize_t count = pread(descriptor, chunk, chunk_size, (off_t)total);
        if (count < 0) {
            if (errno == EINTR) continue;
            status = errno;
            break;
        }
        if (count == 0) break;
        status = sha256_any_add(&hash, chunk, (size_t)count);
        if (status != 0) break;
        total += (uint64_t)count;
    }
    if (status == 0) status = sha256_any_finish(&hash, digest);
    free(chunk);
    *length = total;
    return status;
}

int glance_sha256_bytes(const void *bytes, size_t length, int with_cpu_extensions, uint8_t digest[32]) {
    if (with_cpu_extensions && !glance_sha256_has_cpu_extensions()) return ENOTSUP;
    sha256_any hash;
    int status = sha256_any_start(&hash, with_cpu_extensions);
    if (status == 0) status = sha256_any_add(&hash, bytes, length);
    if (status == 0) status = sha256_any_finish(&hash, digest);
    return status;
}

int glance_md5(const void *bytes, size_t length, uint8_t digest[16]) {
    if (!crypto_ready()) return ELIBACC;
    return crypto.md5(bytes, length, digest) != NULL ? 0 : EIO;
}
