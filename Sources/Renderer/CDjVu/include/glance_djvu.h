// DjVu through DjVuLibre's ddjvuapi (Debian's libdjvulibre-dev), loaded the first time such a file
// comes.
#ifndef GLANCE_DJVU_H
#define GLANCE_DJVU_H

#include "glance_failure.h"

#include <stddef.h>
#include <stdint.h>

/// Loads DjVuLibre (`libdjvulibre.so.21`) once per process; later calls return the first call's
/// result. Returns 1 when ready, else 0 with the reason in `reason`.
int glance_djvu_load(char *reason, size_t capacity);

/// An open DjVu document (opaque): DjVuLibre's context and document over the file's bytes.
typedef struct glance_djvu glance_djvu;

/// Opens the DjVu document of `size` bytes at `data` (copied by DjVuLibre), a single page or a
/// bundled one. An indirect document, whose pages are files beside it, is refused (REFUSED,
/// `reason` naming the first file it asks for): no other stream is ever given to DjVuLibre.
/// Returns NULL with the reason and what failed; else the document, its page count in `*pages`.
glance_djvu *glance_djvu_open(const uint8_t *data, size_t size, int *pages, char *reason, size_t capacity,
                              glance_failure *failure);

/// Page `index`'s (from 0) size in pixels, as shown (its orientation flags applied), and its
/// resolution, from its header without decoding it. Returns 1; else 0 with the reason and what
/// failed (TRUNCATED where the file ends before it).
int glance_djvu_page_info(glance_djvu *djvu, int index, int *width, int *height, int *dpi, char *reason,
                          size_t capacity, glance_failure *failure);

/// Decodes page `index` and draws all of it into `width` x `height` pixels of 24-bit RGB rows
/// (`out`, packed), turned by its orientation flags: DjVuLibre decodes its layers at the reduced
/// resolution asked. Returns 1; else 0 with the reason.
int glance_djvu_render(glance_djvu *djvu, int index, int width, int height, uint8_t *out, char *reason,
                       size_t capacity, glance_failure *failure);

/// Frees the document and its context.
void glance_djvu_close(glance_djvu *djvu);

#endif
