// See include/glance_compression.h.
#include "glance_compression.h"

#include <limits.h>
#include <string.h>
#include <stdint.h>
#include <zlib.h>
#include <zstd.h>

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

/// The start of a gzip stream (`window_bits` 16 + MAX_WBITS) or a zlib one (MAX_WBITS), at most
/// `capacity` bytes of it.
static size_t inflate_start(const void *input, size_t count, void *output, size_t capacity, int window_bits) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit2(&stream, window_bits) != Z_OK) return 0;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)(count > UINT32_MAX ? UINT32_MAX : count);
    stream.next_out = output;
    stream.avail_out = (uInt)(capacity > UINT32_MAX ? UINT32_MAX : capacity);
    int status = inflate(&stream, Z_SYNC_FLUSH);
    size_t written = stream.total_out;
    inflateEnd(&stream);
    return status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR ? written : 0;
}

/// The start of a Zstandard stream, at most `capacity` bytes of it.
static size_t unzstd_start(const void *input, size_t count, void *output, size_t capacity) {
    ZSTD_DStream *stream = ZSTD_createDStream();
    if (stream == NULL) return 0;
    ZSTD_inBuffer in = {input, count, 0};
    ZSTD_outBuffer out = {output, capacity, 0};
    while (out.pos < out.size && in.pos < in.size) {
        size_t status = ZSTD_decompressStream(stream, &out, &in);
        if (ZSTD_isError(status)) break;
        if (status == 0) break;  // The frame ended.
    }
    ZSTD_freeDStream(stream);
    return out.pos;
}

size_t glance_decompress_start(const void *input, size_t count, void *output, size_t capacity) {
    const unsigned char *bytes = input;
    if (count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B) {
        return inflate_start(input, count, output, capacity, 16 + MAX_WBITS);
    }
    if (count >= 4 && bytes[0] == 0x28 && bytes[1] == 0xB5 && bytes[2] == 0x2F && bytes[3] == 0xFD) {
        return unzstd_start(input, count, output, capacity);
    }
    return 0;
}

size_t glance_zlib_inflate(const void *input, size_t count, void *output, size_t capacity) {
    return inflate_start(input, count, output, capacity, MAX_WBITS);
}
