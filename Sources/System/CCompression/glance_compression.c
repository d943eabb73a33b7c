// See include/glance_compression.h.
#define _GNU_SOURCE
#include "glance_compression.h"

#include <bzlib.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lzma.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <unistd.h>
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

glance_compression glance_compression_of(const void *input, size_t count) {
    const unsigned char *bytes = input;
    if (count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B) return GLANCE_COMPRESSION_GZIP;
    if (count >= 4 && bytes[0] == 0x28 && bytes[1] == 0xB5 && bytes[2] == 0x2F && bytes[3] == 0xFD) {
        return GLANCE_COMPRESSION_ZSTD;
    }
    if (count >= 4 && memcmp(bytes, "BZh", 3) == 0 && bytes[3] >= '1' && bytes[3] <= '9') {
        return GLANCE_COMPRESSION_BZIP2;
    }
    if (count >= 6 && memcmp(bytes, "\xFD" "7zXZ\0", 6) == 0) return GLANCE_COMPRESSION_XZ;
    return GLANCE_COMPRESSION_NONE;
}

/// One decompression under way, of any kind: the library's stream.
typedef struct {
    glance_compression kind;
    z_stream zlib;
    bz_stream bzip2;
    lzma_stream xz;
    ZSTD_DStream *zstd;
} decompressor;

/// The most memory xz's decoder may take for its dictionary (xz -9 needs 65 MiB).
#define XZ_MEMORY_LIMIT (128u << 20)

static int decompressor_start(decompressor *d, glance_compression kind) {
    memset(d, 0, sizeof *d);
    d->kind = kind;
    switch (kind) {
    case GLANCE_COMPRESSION_GZIP: return inflateInit2(&d->zlib, 16 + MAX_WBITS) == Z_OK;
    case GLANCE_COMPRESSION_BZIP2: return BZ2_bzDecompressInit(&d->bzip2, 0, 0) == BZ_OK;
    case GLANCE_COMPRESSION_XZ:
        d->xz = (lzma_stream)LZMA_STREAM_INIT;
        return lzma_stream_decoder(&d->xz, XZ_MEMORY_LIMIT, 0) == LZMA_OK;
    case GLANCE_COMPRESSION_ZSTD: return (d->zstd = ZSTD_createDStream()) != NULL;
    default: return 0;
    }
}

static void decompressor_end(decompressor *d) {
    switch (d->kind) {
    case GLANCE_COMPRESSION_GZIP: inflateEnd(&d->zlib); break;
    case GLANCE_COMPRESSION_BZIP2: BZ2_bzDecompressEnd(&d->bzip2); break;
    case GLANCE_COMPRESSION_XZ: lzma_end(&d->xz); break;
    case GLANCE_COMPRESSION_ZSTD: ZSTD_freeDStream(d->zstd); break;
    default: break;
    }
}

/// Decompresses from `*input` (`*count` bytes left, both advanced) into `output` (`*written`
/// advanced, at most `capacity`). Returns 1 when the stream ended, 0 when it wants more input or
/// room, -1 when it is damaged.
static int decompressor_step(decompressor *d, const unsigned char **input, size_t *count, unsigned char *output,
                             size_t capacity, size_t *written) {
    size_t room = capacity - *written;
    size_t in_chunk = *count > UINT_MAX ? UINT_MAX : *count;
    size_t out_chunk = room > UINT_MAX ? UINT_MAX : room;
    size_t used = 0, made = 0;
    int result = -1;
    switch (d->kind) {
    case GLANCE_COMPRESSION_GZIP: {
        d->zlib.next_in = (Bytef *)*input;
        d->zlib.avail_in = (uInt)in_chunk;
        d->zlib.next_out = output + *written;
        d->zlib.avail_out = (uInt)out_chunk;
        int status = inflate(&d->zlib, Z_NO_FLUSH);
        used = in_chunk - d->zlib.avail_in;
        made = out_chunk - d->zlib.avail_out;
        result = status == Z_STREAM_END ? 1 : status == Z_OK || status == Z_BUF_ERROR ? 0 : -1;
        break;
    }
    case GLANCE_COMPRESSION_BZIP2: {
        d->bzip2.next_in = (char *)*input;
        d->bzip2.avail_in = (unsigned)in_chunk;
        d->bzip2.next_out = (char *)output + *written;
        d->bzip2.avail_out = (unsigned)out_chunk;
        int status = BZ2_bzDecompress(&d->bzip2);
        used = in_chunk - d->bzip2.avail_in;
        made = out_chunk - d->bzip2.avail_out;
        result = status == BZ_STREAM_END ? 1 : status == BZ_OK ? 0 : -1;
        break;
    }
    case GLANCE_COMPRESSION_XZ: {
        d->xz.next_in = *input;
        d->xz.avail_in = in_chunk;
        d->xz.next_out = output + *written;
        d->xz.avail_out = out_chunk;
        lzma_ret status = lzma_code(&d->xz, LZMA_RUN);
        used = in_chunk - d->xz.avail_in;
        made = out_chunk - d->xz.avail_out;
        result = status == LZMA_STREAM_END ? 1 : status == LZMA_OK || status == LZMA_BUF_ERROR ? 0 : -1;
        break;
    }
    case GLANCE_COMPRESSION_ZSTD: {
        ZSTD_inBuffer in = {*input, in_chunk, 0};
        ZSTD_outBuffer out = {output + *written, out_chunk, 0};
        size_t status = ZSTD_decompressStream(d->zstd, &out, &in);
        used = in.pos;
        made = out.pos;
        result = ZSTD_isError(status) ? -1 : status == 0 ? 1 : 0;
        break;
    }
    default: break;
    }
    *input += used;
    *count -= used;
    *written += made;
    return result;
}

size_t glance_decompress_start(const void *input, size_t count, void *output, size_t capacity) {
    glance_compression kind = glance_compression_of(input, count);
    // gzip in one call, which answers nothing for a stream damaged anywhere in `input`.
    if (kind == GLANCE_COMPRESSION_GZIP) return inflate_start(input, count, output, capacity, 16 + MAX_WBITS);
    decompressor d;
    if (!decompressor_start(&d, kind)) return 0;
    const unsigned char *next = input;
    size_t left = count, written = 0;
    // Until the output is full, the stream ends, or it stops making progress (the input ran out).
    while (written < capacity) {
        size_t before = written, had = left;
        int status = decompressor_step(&d, &next, &left, output, capacity, &written);
        if (status != 0 || (written == before && left == had)) break;
    }
    decompressor_end(&d);
    return written;
}

/// glance_decompress_file's work; with `start_only`, stopping once `limit` bytes are made (kept,
/// `*complete` 0) instead of failing, and keeping what a cut or damaged stream made before it
/// stopped (`*complete` 0 too) when it made any.
static int decompress_file(int input, uint64_t limit, int start_only, int *decompressed, uint64_t *length,
                           int *complete) {
    *decompressed = -1;
    *length = 0;
    *complete = 1;
    unsigned char header[8];
    ssize_t got = pread(input, header, sizeof header, 0);
    if (got < 0) return -3;
    glance_compression kind = glance_compression_of(header, (size_t)got);
    int output = memfd_create("glance-decompressed", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (output < 0) return -3;
    decompressor d;
    if (!decompressor_start(&d, kind)) {
        close(output);
        return -1;
    }
    // Read and written 256 KiB at a time.
    enum { chunk = 1 << 18 };
    unsigned char *in = malloc(chunk), *out = malloc(chunk);
    int result = in && out ? 0 : -4;
    uint64_t total = 0;
    off_t offset = 0;
    int ended = 0;
    size_t left = 0;
    const unsigned char *next = in;
    while (result == 0 && !ended) {
        if (left == 0) {
            ssize_t read_now = pread(input, in, chunk, offset);
            if (read_now < 0) {
                if (errno == EINTR) continue;
                result = -3;
                break;
            }
            if (read_now == 0) {
                result = -1;  // The file ended before the stream did.
                break;
            }
            offset += read_now;
            left = (size_t)read_now;
            next = in;
        }
        size_t written = 0, had = left;
        int status = decompressor_step(&d, &next, &left, out, chunk, &written);
        // No byte taken and none made with input and room to spare: the stream is stuck.
        if (status < 0 || (status == 0 && written == 0 && left == had)) {
            result = -1;
            break;
        }
        ended = status == 1;
        if (total + written > limit) {
            if (!start_only) {
                result = -2;
                break;
            }
            written = (size_t)(limit - total);
            ended = 1;
            *complete = 0;
        }
        for (size_t done = 0; done < written;) {
            ssize_t put = write(output, out + done, written - done);
            if (put < 0) {
                if (errno == EINTR) continue;
                result = -3;
                break;
            }
            done += (size_t)put;
        }
        total += written;
    }
    free(in);
    free(out);
    decompressor_end(&d);
    if (start_only && result == -1 && total > 0) {
        result = 0;
        *complete = 0;
    }
    if (result != 0) {
        int saved = errno;
        close(output);
        errno = saved;
        return result;
    }
    fcntl(output, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    lseek(output, 0, SEEK_SET);
    *decompressed = output;
    *length = total;
    return 0;
}

int glance_decompress_file(int input, uint64_t limit, int *decompressed, uint64_t *length) {
    int complete;
    return decompress_file(input, limit, 0, decompressed, length, &complete);
}

int glance_decompress_file_start(int input, uint64_t limit, int *decompressed, uint64_t *length, int *complete) {
    return decompress_file(input, limit, 1, decompressed, length, complete);
}

size_t glance_zlib_inflate(const void *input, size_t count, void *output, size_t capacity) {
    return inflate_start(input, count, output, capacity, MAX_WBITS);
}
