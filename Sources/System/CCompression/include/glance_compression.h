// C shim for gzip through zlib, which Swift reaches no other way without a package.
#ifndef GLANCE_COMPRESSION_H
#define GLANCE_COMPRESSION_H

#include <stddef.h>

/// The most bytes gzip of `count` bytes can take (zlib's bound and the gzip header and trailer).
size_t glance_gzip_bound(size_t count);

/// Compresses `count` bytes of `input` as one gzip member (RFC 1952) at zlib's `level` (1 fastest
/// to 9 smallest) into `output`, which holds `capacity` bytes (glance_gzip_bound(count) is
/// always enough). Returns the length written, or 0 when zlib fails or `output` is too small.
size_t glance_gzip(const void *input, size_t count, int level, void *output, size_t capacity);

#endif
