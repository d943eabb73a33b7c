// See include/glance_compression.h.
#include "glance_compression.h"

#include <limits.h>
#include <string.h>
#include <zlib.h>

size_t glance_gzip_bound(size_t count) {
    // deflateBound for the raw stream, plus gzip's 10-byte header and 8-byte trailer.
    return (size_t)compressBound((uLong)count) + 18 + 64;
}

size_t glance_gzip(const void *input, size_t count, int level, void *output, size_t capacity) {
    if (count > UINT_MAX || capacity > UINT_MAX) return 0;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    // windowBits 15 + 16: a gzip wrapper rather than zlib's; memLevel 8 is zlib's default.
    if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)count;
    stream.next_out = (Bytef *)output;
    stream.avail_out = (uInt)capacity;
    int status = deflate(&stream, Z_FINISH);
    size_t written = status == Z_STREAM_END ? (size_t)stream.total_out : 0;
    deflateEnd(&stream);
    return written;
}
