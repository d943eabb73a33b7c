// C shim for gzip through zlib, and for reading the start of a gzip or Zstandard stream (zlib,
// libzstd), which Swift reaches no other way without a package.
#ifndef GLANCE_COMPRESSION_H
#define GLANCE_COMPRESSION_H

#include <stddef.h>

/// The most bytes gzip of `count` bytes can take (zlib's bound and the gzip header and trailer).
size_t glance_gzip_bound(size_t count);

/// Compresses `count` bytes of `input` as one gzip member (RFC 1952) at zlib's `level` (1 fastest
/// to 9 smallest) into `output`, which holds `capacity` bytes (glance_gzip_bound(count) is
/// always enough). Returns the length written, or 0 when zlib fails or `output` is too small.
size_t glance_gzip(const void *input, size_t count, int level, void *output, size_t capacity);

/// Decompresses the start of the gzip or Zstandard stream in `input` (`count` bytes, told by its
/// magic number) into `output`, at most `capacity` bytes: the head of a compressed file, read
/// without inflating the rest. Returns the length written (less than `capacity` when the stream,
/// or the input, ended first), or 0 when `input` is neither or is damaged before any byte came.
size_t glance_decompress_start(const void *input, size_t count, void *output, size_t capacity);

/// Inflates the zlib stream (RFC 1950) in `input` (`count` bytes) into `output`, at most `capacity`
/// bytes. Returns the length written (less than `capacity` when the stream or the input ended
/// first), or 0 when it is damaged before any byte came.
size_t glance_zlib_inflate(const void *input, size_t count, void *output, size_t capacity);

#endif
