// See include/glance_processor_features.h.
#include "glance_processor_features.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

unsigned glance_processor_detected_features(void) {
    unsigned features = 0;
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    if (c & bit_SSSE3) features |= GLANCE_FEATURE_SSSE3;
    if (c & bit_SSE4_1) features |= GLANCE_FEATURE_SSE4_1;
    int avx_usable = 0;
    if ((c & bit_OSXSAVE) && (c & bit_AVX) && (c & bit_FMA)) {
        unsigned low, high;
        __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
        avx_usable = (low & 6) == 6;   // the system saves the XMM and YMM registers
    }
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        if (avx_usable && (b & bit_AVX2)) features |= GLANCE_FEATURE_AVX2;
        if (b & bit_SHA) features |= GLANCE_FEATURE_SHA;
    }
#endif
    return features;
}

/// The names GLANCE_SIMD_DISABLE knows, with the extensions each turns off.
static const struct {
    const char *name;
    unsigned features;
} known_names[] = {
    {"ssse3", GLANCE_FEATURE_SSSE3},
    {"sse4_1", GLANCE_FEATURE_SSE4_1},
    {"avx2", GLANCE_FEATURE_AVX2},
    {"sha_ni", GLANCE_FEATURE_SHA},
    {"all", GLANCE_FEATURE_SSSE3 | GLANCE_FEATURE_SSE4_1 | GLANCE_FEATURE_AVX2 | GLANCE_FEATURE_SHA},
};

int glance_processor_parse_disabled(const char *list, unsigned *features, const char **unknown,
                                    size_t *unknown_length) {
    *features = 0;
    const char *name = list;
    while (*name != '\0') {
        size_t length = strcspn(name, ",");
        if (length > 0) {
            size_t i = 0;
            size_t count = sizeof known_names / sizeof known_names[0];
            while (i < count && !(strlen(known_names[i].name) == length && memcmp(known_names[i].name, name, length) == 0))
                i++;
            if (i == count) {
                *unknown = name;
                *unknown_length = length;
                return -1;
            }
            *features |= known_names[i].features;
        }
        name += length;
        if (*name == ',') name++;
    }
    return 0;
}

/// The extensions the process may use, once worked out: one more than their bits, 0 before. cpuid
/// leaves a virtual machine for its hypervisor (about 18 us a call measured here), and every
/// PNG, scaler and digest asked again: 4% of a text batch's smaller sizes' time (perf).
static _Atomic unsigned worked_out = 0;

unsigned glance_processor_features(void) {
    unsigned known = atomic_load_explicit(&worked_out, memory_order_relaxed);
    if (known != 0) return known - 1;
    unsigned features = glance_processor_detected_features();
    const char *disable = getenv("GLANCE_SIMD_DISABLE");
    unsigned disabled = 0;
    const char *unknown;
    size_t unknown_length;
    if (disable != NULL && glance_processor_parse_disabled(disable, &disabled, &unknown, &unknown_length) == 0)
        features &= ~disabled;
    unsigned sha_companions = GLANCE_FEATURE_SSSE3 | GLANCE_FEATURE_SSE4_1;
    if ((features & sha_companions) != sha_companions) features &= ~GLANCE_FEATURE_SHA;
    // Threads that get here at once work out the same value.
    atomic_store_explicit(&worked_out, features + 1, memory_order_relaxed);
    return features;
}
