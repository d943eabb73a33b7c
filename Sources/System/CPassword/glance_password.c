// Password hashing through libxcrypt (Debian's libcrypt): the salt and the hash are the
// library's; this file only owns the buffers and the comparison.
#include "glance_password.h"

#include <crypt.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int glance_password_hash(const char *password, char *out, size_t capacity) {
    char setting[CRYPT_GENSALT_OUTPUT_SIZE];
    // NULL prefix: the library's preferred method (yescrypt); 0: its default cost; NULL random
    // bytes: read from the kernel.
    if (crypt_gensalt_rn(NULL, 0, NULL, 0, setting, sizeof setting) == NULL) return -1;
    struct crypt_data *data = calloc(1, sizeof *data);
    if (data == NULL) return -1;
    const char *hashed = crypt_rn(password, setting, data, sizeof *data);
    int result = -1;
    if (hashed != NULL && hashed[0] != '*' && strlen(hashed) < capacity) {
        strcpy(out, hashed);
        result = 0;
    } else if (hashed != NULL) {
        errno = EINVAL;
    }
    explicit_bzero(data, sizeof *data);
    free(data);
    return result;
}

int glance_password_matches(const char *password, const char *hash) {
    struct crypt_data *data = calloc(1, sizeof *data);
    if (data == NULL) return 0;
    const char *hashed = crypt_rn(password, hash, data, sizeof *data);
    int matches = 0;
    if (hashed != NULL && hashed[0] != '*') {
        size_t length = strlen(hash);
        if (strlen(hashed) == length) {
            unsigned char difference = 0;
            for (size_t index = 0; index < length; index++) difference |= (unsigned char)(hashed[index] ^ hash[index]);
            matches = difference == 0;
        }
    }
    explicit_bzero(data, sizeof *data);
    free(data);
    return matches;
}
