// Which optional x86-64 instruction-set extensions Glance's own code may use, asked at run time.
//
// One build runs on every x86-64 processor: the scaler, the PNG encoder's checksum and the
// digest each have a path for the baseline (SSE2) and faster ones for the extensions below, and
// choose when they start. GLANCE_SIMD_DISABLE turns extensions off by name (a comma-separated
// list of `ssse3`, `sse4_1`, `avx2`, `sha_ni`, or `all`), so that the speed of a machine without
// them can be measured on one that has them; the names are those of /proc/cpuinfo.
#ifndef GLANCE_PROCESSOR_FEATURES_H
#define GLANCE_PROCESSOR_FEATURES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One optional extension, as a bit of a feature set.
enum glance_processor_feature {
    GLANCE_FEATURE_SSSE3 = 1u << 0,
    GLANCE_FEATURE_SSE4_1 = 1u << 1,
    /// AVX2 and FMA together, with the system saving the YMM registers.
    GLANCE_FEATURE_AVX2 = 1u << 2,
    /// The SHA extensions (used only with SSSE3 and SSE4.1 also present).
    GLANCE_FEATURE_SHA = 1u << 3,
};

/// The extensions this processor has (0 on other architectures).
unsigned glance_processor_detected_features(void);

/// The extensions Glance's code may use: those detected, less those GLANCE_SIMD_DISABLE names
/// and those whose companions are missing (SHA without SSSE3 and SSE4.1). An unknown name in the
/// variable disables nothing; the command line refuses it first (see below). Worked out on the
/// first call, then remembered for the process (the variable is read once).
unsigned glance_processor_features(void);

/// Reads a GLANCE_SIMD_DISABLE value into the set it names. Returns 0, or -1 with
/// `*unknown` and `*unknown_length` at the first name it does not know.
int glance_processor_parse_disabled(const char *list, unsigned *features, const char **unknown,
                                    size_t *unknown_length);

#ifdef __cplusplus
}
#endif

#endif
