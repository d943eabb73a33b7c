// See include/glance_digest.h.
#include "glance_digest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

int glance_digest_file(const char *path, uint32_t *crc, uint32_t *adler, uint64_t *length) {
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) return errno;
    enum { chunk_size = 256 * 1024 };
    unsigned char *chunk = malloc(chunk_size);
    if (chunk == NULL) {
        close(descriptor);
        return ENOMEM;
    }
    uLong c = crc32(0L, Z_NULL, 0), a = adler32(0L, Z_NULL, 0);
    uint64_t total = 0;
    int status = 0;
    for (;;) {
        ssize_t count = read(descriptor, chunk, chunk_size);
        if (count < 0) {
            if (errno == EINTR) continue;
            status = errno;
            break;
        }
        if (count == 0) break;
        c = crc32(c, chunk, (uInt)count);
        a = adler32(a, chunk, (uInt)count);
        total += (uint64_t)count;
    }
    free(chunk);
    close(descriptor);
    *crc = (uint32_t)c;
    *adler = (uint32_t)a;
    *length = total;
    return status;
}
