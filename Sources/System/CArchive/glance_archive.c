// See include/glance_archive.h.
#define _GNU_SOURCE
#include "glance_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "glance_library_loader.h"

/// libarchive's functions, typed by its own header, found once and read-only after.
#define ARCHIVE_FUNCTIONS(X)                                                 \
    GLANCE_TYPED(X, read_new, archive_read_new)                              \
    GLANCE_TYPED(X, read_free, archive_read_free)                            \
    GLANCE_TYPED(X, support_zip_seekable, archive_read_support_format_zip_seekable) \
    GLANCE_TYPED(X, support_zip, archive_read_support_format_zip)            \
    GLANCE_TYPED(X, support_rar, archive_read_support_format_rar)            \
    GLANCE_TYPED(X, support_rar5, archive_read_support_format_rar5)          \
    GLANCE_TYPED(X, support_7zip, archive_read_support_format_7zip)          \
    GLANCE_TYPED(X, support_filter_none, archive_read_support_filter_none)   \
    GLANCE_TYPED(X, set_read_callback, archive_read_set_read_callback)       \
    GLANCE_TYPED(X, set_seek_callback, archive_read_set_seek_callback)       \
    GLANCE_TYPED(X, set_skip_callback, archive_read_set_skip_callback)       \
    GLANCE_TYPED(X, set_callback_data, archive_read_set_callback_data)       \
    GLANCE_TYPED(X, open1, archive_read_open1)                               \
    GLANCE_TYPED(X, next_header, archive_read_next_header)                   \
    GLANCE_TYPED(X, read_data, archive_read_data)                            \
    GLANCE_TYPED(X, error_string, archive_error_string)                      \
    GLANCE_TYPED(X, entry_pathname, archive_entry_pathname)                  \
    GLANCE_TYPED(X, entry_size, archive_entry_size)                          \
    GLANCE_TYPED(X, entry_size_is_set, archive_entry_size_is_set)            \
    GLANCE_TYPED(X, entry_filetype, archive_entry_filetype)                  \
    GLANCE_TYPED(X, entry_is_encrypted, archive_entry_is_encrypted)

/// The soname: libarchive's ABI has been 13 since 2010.
GLANCE_LIBRARY(libarchive, "libarchive.so.13", ARCHIVE_FUNCTIONS, GLANCE_LIBRARY_NO_START)

int glance_archive_load(char *reason, size_t capacity) { return libarchive_ensure(reason, capacity); }

/// One entry of the listing.
typedef struct {
    char *name;
    int64_t size;
    int is_file, is_encrypted;
} entry;

struct glance_archive {
    int fd;
    int64_t size;
    glance_archive_formats formats;
    glance_archive_limits limits;
    entry *entries;
    size_t count;
};

/// The reader's position in the file and its buffer, for the callbacks.
typedef struct {
    int fd;
    int64_t size, position;
    int read_error;
    uint8_t buffer[64 << 10];
} source;

static la_ssize_t read_block(struct archive *reader, void *data, const void **block) {
    (void)reader;
    source *from = data;
    for (;;) {
        ssize_t got = pread(from->fd, from->buffer, sizeof from->buffer, (off_t)from->position);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            from->read_error = errno;
            return -1;
        }
        from->position += got;
        *block = from->buffer;
        return got;
    }
}

static la_int64_t seek_to(struct archive *reader, void *data, la_int64_t offset, int whence) {
    (void)reader;
    source *from = data;
    int64_t target = whence == SEEK_SET ? offset : whence == SEEK_CUR ? from->position + offset : from->size + offset;
    if (target < 0) return ARCHIVE_FATAL;
    from->position = target > from->size ? from->size : target;
    return from->position;
}

static la_int64_t skip_ahead(struct archive *reader, void *data, la_int64_t request) {
    (void)reader;
    source *from = data;
    int64_t left = from->size - from->position;
    int64_t skipped = request < left ? request : left;
    from->position += skipped;
    return skipped;
}

/// A reader over `from`, for the formats asked for; NULL when libarchive cannot make one.
static struct archive *open_reader(source *from, glance_archive_formats formats) {
    struct archive *reader = libarchive.read_new();
    if (reader == NULL) return NULL;
    libarchive.support_filter_none(reader);
    // The seekable ZIP reader trusts the central directory (what office suites and e-book
    // readers read), not local headers a crafted file may contradict it with.
    libarchive.support_zip_seekable(reader);
    if (formats == GLANCE_ARCHIVE_COMICS) {
        libarchive.support_rar(reader);
        libarchive.support_rar5(reader);
        libarchive.support_7zip(reader);
    }
    libarchive.set_read_callback(reader, read_block);
    libarchive.set_seek_callback(reader, seek_to);
    libarchive.set_skip_callback(reader, skip_ahead);
    libarchive.set_callback_data(reader, from);
    // A failure here shows again at the first header, where the caller reads its error.
    libarchive.open1(reader);
    return reader;
}

static void copy_error(struct archive *reader, const source *from, char *reason, size_t capacity,
                       glance_failure *failure) {
    if (from->read_error != 0) {
        *failure = GLANCE_FAILURE_UNREADABLE;
        snprintf(reason, capacity, "%s", strerror(from->read_error));
        return;
    }
    const char *text = reader != NULL ? libarchive.error_string(reader) : NULL;
    snprintf(reason, capacity, "%s", text != NULL ? text : "not an archive this build reads");
    if (text != NULL && (strstr(text, "Truncated") != NULL || strstr(text, "truncated") != NULL ||
                         strstr(text, "Premature end") != NULL))
        *failure = GLANCE_FAILURE_TRUNCATED;
}

void glance_archive_close(glance_archive *archive) {
    if (archive == NULL) return;
    for (size_t index = 0; index < archive->count; index++) free(archive->entries[index].name);
    free(archive->entries);
    free(archive);
}

/// Adds the entry `header` to the listing, held to the limits (`room`: the listing's capacity;
/// `total`: the bytes its entries declare so far): 1, or 0 with the failure and its reason.
static int add_entry(glance_archive *archive, struct archive_entry *header, size_t *room, int64_t *total,
                     char *reason, size_t capacity, glance_failure *failure) {
    const glance_archive_limits *limits = &archive->limits;
    if (archive->count == limits->max_entries) {
        *failure = GLANCE_FAILURE_PAST_LIMIT;
        snprintf(reason, capacity, "more than %zu entries", limits->max_entries);
        return 0;
    }
    if (archive->count == *room) {
        *room = *room ? *room * 2 : 64;
        entry *grown = realloc(archive->entries, *room * sizeof *grown);
        if (grown == NULL) {
            snprintf(reason, capacity, "out of memory");
            return 0;
        }
        archive->entries = grown;
    }
    const char *name = libarchive.entry_pathname(header);
    entry *item = &archive->entries[archive->count];
    item->name = strdup(name != NULL ? name : "");
    item->size = libarchive.entry_size_is_set(header) ? libarchive.entry_size(header) : -1;
    item->is_file = libarchive.entry_filetype(header) == AE_IFREG;
    item->is_encrypted = libarchive.entry_is_encrypted(header) > 0;
    archive->count++;
    if (item->name == NULL) {
        snprintf(reason, capacity, "out of memory");
        return 0;
    }
    if (item->size > limits->max_entry_bytes) {
        *failure = GLANCE_FAILURE_PAST_LIMIT;
        snprintf(reason, capacity, "an entry declares %lld bytes, past the limit of %lld",
                 (long long)item->size, (long long)limits->max_entry_bytes);
        return 0;
    }
    *total += item->size > 0 ? item->size : 0;
    if (*total > limits->max_total_bytes) {
        *failure = GLANCE_FAILURE_PAST_LIMIT;
        snprintf(reason, capacity, "its entries declare more than %lld bytes in all",
                 (long long)limits->max_total_bytes);
        return 0;
    }
    return 1;
}

glance_archive *glance_archive_open(int fd, int64_t size, glance_archive_formats formats,
                                    const glance_archive_limits *limits, char *reason, size_t capacity,
                                    glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    glance_archive *archive = calloc(1, sizeof *archive);
    source *from = calloc(1, sizeof *from);
    if (archive == NULL || from == NULL) {
        free(archive);
        free(from);
        snprintf(reason, capacity, "out of memory");
        return NULL;
    }
    archive->fd = fd;
    archive->size = size;
    archive->formats = formats;
    archive->limits = *limits;
    from->fd = fd;
    from->size = size;
    struct archive *reader = open_reader(from, formats);
    size_t room = 0;
    int64_t total = 0;
    int status = reader != NULL ? ARCHIVE_OK : ARCHIVE_FATAL;
    for (;;) {
        struct archive_entry *header = NULL;
        status = reader != NULL ? libarchive.next_header(reader, &header) : ARCHIVE_FATAL;
        if (status == ARCHIVE_EOF) break;
        if (status < ARCHIVE_WARN) {
            copy_error(reader, from, reason, capacity, failure);
            break;
        }
        if (!add_entry(archive, header, &room, &total, reason, capacity, failure)) {
            status = ARCHIVE_FATAL;
            break;
        }
    }
    if (reader != NULL) libarchive.read_free(reader);
    free(from);
    if (status != ARCHIVE_EOF) {
        glance_archive_close(archive);
        return NULL;
    }
    if (size > 0 && (double)total > limits->max_ratio * (double)size && total > (1 << 20)) {
        *failure = GLANCE_FAILURE_PAST_LIMIT;
        snprintf(reason, capacity, "its entries declare %lld bytes, %.0f times its own size (a bomb)",
                 (long long)total, (double)total / (double)size);
        glance_archive_close(archive);
        return NULL;
    }
    return archive;
}

size_t glance_archive_entry_count(const glance_archive *archive) { return archive->count; }

const char *glance_archive_entry_name(const glance_archive *archive, size_t index) {
    return index < archive->count ? archive->entries[index].name : "";
}

int64_t glance_archive_entry_size(const glance_archive *archive, size_t index) {
    return index < archive->count ? archive->entries[index].size : -1;
}

int glance_archive_entry_is_file(const glance_archive *archive, size_t index) {
    return index < archive->count && archive->entries[index].is_file;
}

int glance_archive_entry_is_encrypted(const glance_archive *archive, size_t index) {
    return index < archive->count && archive->entries[index].is_encrypted;
}

int glance_archive_read_entry(glance_archive *archive, size_t index, uint8_t **data, size_t *length, char *reason,
                              size_t capacity, glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    *data = NULL;
    *length = 0;
    if (index >= archive->count) {
        snprintf(reason, capacity, "no entry %zu", index);
        return 0;
    }
    if (archive->entries[index].is_encrypted) {
        *failure = GLANCE_FAILURE_ENCRYPTED;
        snprintf(reason, capacity, "the entry is encrypted");
        return 0;
    }
    source *from = calloc(1, sizeof *from);
    if (from == NULL) {
        snprintf(reason, capacity, "out of memory");
        return 0;
    }
    from->fd = archive->fd;
    from->size = archive->size;
    struct archive *reader = open_reader(from, archive->formats);
    int found = 0;
    // Entries are read in order: the ones before this are passed over, not inflated.
    for (size_t at = 0; reader != NULL && at <= index; at++) {
        struct archive_entry *header = NULL;
        int status = libarchive.next_header(reader, &header);
        if (status < ARCHIVE_WARN || status == ARCHIVE_EOF) break;
        if (at == index) found = 1;
    }
    int ok = 0;
    if (found) {
        int64_t limit = archive->limits.max_entry_bytes;
        size_t room = 0;
        uint8_t *buffer = NULL;
        for (;;) {
            if (*length + (64 << 10) > room) {
                room = room ? room * 2 : (1 << 20);
                uint8_t *grown = realloc(buffer, room);
                if (grown == NULL) {
                    snprintf(reason, capacity, "out of memory");
                    break;
                }
                buffer = grown;
            }
            la_ssize_t got = libarchive.read_data(reader, buffer + *length, 64 << 10);
            if (got == 0) {
                ok = 1;
                break;
            }
            if (got < 0) {
                copy_error(reader, from, reason, capacity, failure);
                break;
            }
            *length += (size_t)got;
            if ((int64_t)*length > limit) {
                *failure = GLANCE_FAILURE_PAST_LIMIT;
                snprintf(reason, capacity, "an entry inflates past the limit of %lld bytes", (long long)limit);
                break;
            }
        }
        if (ok) {
            *data = buffer;
        } else {
            free(buffer);
            *length = 0;
        }
    } else {
        copy_error(reader, from, reason, capacity, failure);
    }
    if (reader != NULL) libarchive.read_free(reader);
    free(from);
    return ok;
}

void glance_archive_free(uint8_t *data) { free(data); }

/// Whether `bytes` start as a ZIP archive (a local file header, or an empty archive's end).
static int starts_as_zip(const uint8_t *bytes, size_t length) {
    return length >= 4 && bytes[0] == 'P' && bytes[1] == 'K' &&
           ((bytes[2] == 3 && bytes[3] == 4) || (bytes[2] == 5 && bytes[3] == 6));
}

static int check_contents(glance_archive *archive, int depth, char *reason, size_t capacity,
                          glance_failure *failure);

/// Checks a nested ZIP archive held in memory: written to an anonymous memory file (no name in any
/// folder), listed and inflated under the outer archive's limits.
static int check_nested(const glance_archive *outer, const uint8_t *bytes, size_t length, int depth, char *reason,
                        size_t capacity, glance_failure *failure) {
    if (depth >= 1) {
        *failure = GLANCE_FAILURE_PAST_LIMIT;
        snprintf(reason, capacity, "an archive nested inside an embedded archive");
        return 0;
    }
    int fd = memfd_create("glance-nested-archive", MFD_CLOEXEC);
    if (fd < 0) {
        snprintf(reason, capacity, "cannot hold an embedded archive: %s", strerror(errno));
        return 0;
    }
    size_t written = 0;
    while (written < length) {
        ssize_t count = write(fd, bytes + written, length - written);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) {
            snprintf(reason, capacity, "cannot hold an embedded archive: %s", strerror(errno));
            close(fd);
            return 0;
        }
        written += (size_t)count;
    }
    char inner_reason[256];
    glance_archive *inner = glance_archive_open(fd, (int64_t)length, GLANCE_ARCHIVE_ZIP, &outer->limits, inner_reason,
                                                sizeof inner_reason, failure);
    int ok = 0;
    if (inner != NULL) {
        ok = check_contents(inner, depth + 1, inner_reason, sizeof inner_reason, failure);
        glance_archive_close(inner);
    }
    if (!ok) snprintf(reason, capacity, "an embedded archive: %s", inner_reason);
    close(fd);
    return ok;
}

/// Appends `length` bytes to the buffer `kept` (of `*kept_length` bytes in `*room`), growing it:
/// 1, or 0 when out of memory.
static int keep(uint8_t **kept, size_t *kept_length, size_t *room, const uint8_t *bytes, size_t length) {
    if (*kept_length + length > *room) {
        size_t grown_room = *room ? *room * 2 : (1 << 20);
        while (grown_room < *kept_length + length) grown_room *= 2;
        uint8_t *grown = realloc(*kept, grown_room);
        if (grown == NULL) return 0;
        *kept = grown;
        *room = grown_room;
    }
    memcpy(*kept + *kept_length, bytes, length);
    *kept_length += length;
    return 1;
}

static int check_contents(glance_archive *archive, int depth, char *reason, size_t capacity,
                          glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    source *from = calloc(1, sizeof *from);
    uint8_t *chunk = malloc(64 << 10);
    if (from == NULL || chunk == NULL) {
        free(from);
        free(chunk);
        snprintf(reason, capacity, "out of memory");
        return 0;
    }
    from->fd = archive->fd;
    from->size = archive->size;
    struct archive *reader = open_reader(from, archive->formats);
    const glance_archive_limits *limits = &archive->limits;
    int64_t total = 0;
    int ok = reader != NULL;
    for (size_t index = 0; ok; index++) {
        struct archive_entry *header = NULL;
        int status = libarchive.next_header(reader, &header);
        if (status == ARCHIVE_EOF) break;
        if (status < ARCHIVE_WARN || index >= archive->count) {
            copy_error(reader, from, reason, capacity, failure);
            ok = 0;
            break;
        }
        if (!archive->entries[index].is_file || archive->entries[index].is_encrypted) continue;
        // The entry's bytes are kept only while it may be an archive (it starts as one).
        uint8_t *kept = NULL;
        size_t kept_length = 0, room = 0;
        int64_t inflated = 0;
        int maybe_archive = 1;
        for (;;) {
            la_ssize_t got = libarchive.read_data(reader, chunk, 64 << 10);
            if (got == 0) break;
            if (got < 0) {
                copy_error(reader, from, reason, capacity, failure);
                ok = 0;
                break;
            }
            if (inflated == 0) maybe_archive = starts_as_zip(chunk, (size_t)got);
            inflated += got;
            total += got;
            if (inflated > limits->max_entry_bytes) {
                *failure = GLANCE_FAILURE_PAST_LIMIT;
                snprintf(reason, capacity, "an entry inflates past the limit of %lld bytes",
                         (long long)limits->max_entry_bytes);
                ok = 0;
                break;
            }
            if (total > limits->max_total_bytes) {
                *failure = GLANCE_FAILURE_PAST_LIMIT;
                snprintf(reason, capacity, "its entries inflate past %lld bytes in all",
                         (long long)limits->max_total_bytes);
                ok = 0;
                break;
            }
            if (maybe_archive && !keep(&kept, &kept_length, &room, chunk, (size_t)got)) {
                snprintf(reason, capacity, "out of memory");
                ok = 0;
                break;
            }
        }
        if (ok && maybe_archive && kept_length > 0)
            ok = check_nested(archive, kept, kept_length, depth, reason, capacity, failure);
        free(kept);
    }
    if (reader != NULL) libarchive.read_free(reader);
    free(from);
    free(chunk);
    return ok;
}

int glance_archive_check_contents(glance_archive *archive, char *reason, size_t capacity,
                                  glance_failure *failure) {
    return check_contents(archive, 0, reason, capacity, failure);
}
