// C shim for gzip through zlib, and for reading a gzip, bzip2, xz or Zstandard stream (zlib,
// libbz2, liblzma, libzstd), which Swift reaches no other way without a package.
#ifndef GLANCE_COMPRESSION_H
#define GLANCE_COMPRESSION_H

#include <stddef.h>
#include <stdint.h>

/// The most bytes gzip of `count` bytes can take (zlib's bound and the gzip header and trailer).
size_t glance_gzip_bound(size_t count);

/// Compresses `count` bytes of `input` as one gzip member (RFC 1952) at zlib's `level` (1 fastest
/// to 9 smallest) into `output`, which holds `capacity` bytes (glance_gzip_bound(count) is
/// always enough). Returns the length written, or 0 when zlib fails or `output` is too small.
size_t glance_gzip(const void *input, size_t count, int level, void *output, size_t capacity);

/// The kinds of compressed stream told by their magic numbers.
typedef enum {
    GLANCE_COMPRESSION_NONE = 0,
    GLANCE_COMPRESSION_GZIP = 1,
    GLANCE_COMPRESSION_BZIP2 = 2,
    GLANCE_COMPRESSION_XZ = 3,
    GLANCE_COMPRESSION_ZSTD = 4,
} glance_compression;

/// The kind of compressed stream `input` (`count` bytes, its start) begins with.
glance_compression glance_compression_of(const void *input, size_t count);

/// Decompresses the start of the gzip, bzip2, xz or Zstandard stream in `input` (`count` bytes, told by its
/// magic number) into `output`, at most `capacity` bytes: the head of a compressed file, read
/// without inflating the rest. Returns the length written (less than `capacity` when the stream,
/// or the input, ended first), or 0 when `input` is neither or is damaged before any byte came.
size_t glance_decompress_start(const void *input, size_t count, void *output, size_t capacity);

/// Inflates the zlib stream (RFC 1950) in `input` (`count` bytes) into `output`, at most `capacity`
/// bytes. Returns the length written (less than `capacity` when the stream or the input ended
/// first), or 0 when it is damaged before any byte came.
size_t glance_zlib_inflate(const void *input, size_t count, void *output, size_t capacity);

/// Decompresses the whole gzip, bzip2, xz or Zstandard stream in the file open at `input` (read
/// from its start with pread, so its offset is left alone) into a new memory file, at most
/// `limit` bytes, a chunk at a time: `*decompressed` gets its descriptor (sealed, at offset 0,
/// the caller's to close) and `*length` its size. Returns 0, -1 when the stream is damaged, cut
/// or of no kind known, -2 when it decompresses to more than `limit`, -3 when reading or writing
/// failed (errno), -4 when memory ran out.
int glance_decompress_file(int input, uint64_t limit, int *decompressed, uint64_t *length);

/// As glance_decompress_file, for the start of the stream only: at most `limit` bytes are made
/// and the rest is not decompressed, `*complete` saying whether the stream ended within them (0
/// too when a cut or damaged stream made some bytes before it stopped: those are kept). Returns
/// 0, or -1 when the stream is damaged or cut before a byte came, -3 or -4 as above.
int glance_decompress_file_start(int input, uint64_t limit, int *decompressed, uint64_t *length, int *complete);

#endif
