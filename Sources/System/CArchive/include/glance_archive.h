// Archives through libarchive (Debian's libarchive-dev), loaded the first time one is read: the
// ZIP containers of office documents, e-books and comic books, and the RAR and 7-Zip of comics.
//
// An archive is read through the caller's descriptor with pread only. Its entries are listed
// first, from what the archive declares, and held to limits before any entry's data is read:
// how many entries, each one's declared size, their total, and the total against the archive's
// own size (a bomb declares far more than it holds). Reading an entry is held to the same
// per-entry limit by what it actually inflates to. Entry names are data, never paths: nothing
// is written anywhere, and a nested archive is never opened.
#ifndef GLANCE_ARCHIVE_H
#define GLANCE_ARCHIVE_H

#include "glance_failure.h"

#include <stddef.h>
#include <stdint.h>

/// Loads libarchive (`libarchive.so.13`) once per process; later calls return the first call's
/// result. Returns 1 when ready, else 0 with the reason in `reason`.
int glance_archive_load(char *reason, size_t capacity);

/// An archive's listing and the descriptor it reads (opaque).
typedef struct glance_archive glance_archive;

/// What an archive may hold.
typedef struct {
    /// The most entries.
    size_t max_entries;
    /// The most bytes one entry may declare or inflate to.
    int64_t max_entry_bytes;
    /// The most bytes all entries may declare together.
    int64_t max_total_bytes;
    /// The most the declared total may be, as a multiple of the archive's own size.
    double max_ratio;
} glance_archive_limits;

/// Which formats are read.
typedef enum {
    /// ZIP only (office documents, EPUB, CBZ).
    GLANCE_ARCHIVE_ZIP = 0,
    /// ZIP, RAR (4 and 5) and 7-Zip (comic books).
    GLANCE_ARCHIVE_COMICS = 1,
} glance_archive_formats;

/// Why an archive, or one of its entries, could not be read.

/// Lists the archive of `size` bytes on descriptor `fd` (read with pread only; the descriptor
/// stays the caller's) and checks the listing against `limits`. Returns NULL with the reason in
/// `reason` and what failed in `*failure`. Only after glance_archive_load.
glance_archive *glance_archive_open(int fd, int64_t size, glance_archive_formats formats,
                                    const glance_archive_limits *limits, char *reason, size_t capacity,
                                    glance_failure *failure);

/// How many entries the listing holds.
size_t glance_archive_entry_count(const glance_archive *archive);

/// Entry `index`'s name as the archive spells it (bytes, NUL-terminated; owned by the archive).
const char *glance_archive_entry_name(const glance_archive *archive, size_t index);

/// Entry `index`'s declared size in bytes (-1 when the archive does not say).
int64_t glance_archive_entry_size(const glance_archive *archive, size_t index);

/// Whether entry `index` is a regular file (not a folder, a link or a device), and whether it is
/// encrypted.
int glance_archive_entry_is_file(const glance_archive *archive, size_t index);
int glance_archive_entry_is_encrypted(const glance_archive *archive, size_t index);

/// Reads entry `index` whole, at most the limits' `max_entry_bytes`, into a buffer the caller
/// frees with glance_archive_free. Returns 1 with the buffer in `*data` and its length in
/// `*length`; else 0 with the reason in `reason` and what failed in `*failure`.
int glance_archive_read_entry(glance_archive *archive, size_t index, uint8_t **data, size_t *length, char *reason,
                              size_t capacity, glance_failure *failure);

/// Inflates every entry in one pass, keeping nothing, and holds what they actually inflate to
/// (not what they declare) to the limits: each entry to `max_entry_bytes`, all together to
/// `max_total_bytes`. An entry that is itself a ZIP archive (an embedded document) is listed and
/// inflated the same way, under the same limits, from memory; an archive inside that one is
/// refused. Returns 1 when the archive passes, else 0 with the reason in `reason` and what failed
/// in `*failure`.
int glance_archive_check_contents(glance_archive *archive, char *reason, size_t capacity,
                                  glance_failure *failure);

/// Frees a buffer glance_archive_read_entry gave.
void glance_archive_free(uint8_t *data);

/// Frees the listing.
void glance_archive_close(glance_archive *archive);

#endif
