// LibreOffice through LibreOfficeKit (Debian's libreofficekit-dev for the header; the office
// suite's own libmergedlo.so, loaded at start from its program folder, for the code).
//
// One instance a process, started before the process confines itself: LibreOffice reads its
// configuration, loads its services and makes its profile then. Documents are loaded from a path
// the caller made (a private copy of the document), drawn part by part into the caller's pixels,
// and closed. Every call comes from one thread.
#ifndef GLANCE_OFFICE_H
#define GLANCE_OFFICE_H

#include <stddef.h>
#include <stdint.h>

/// A started LibreOffice (opaque).
typedef struct glance_office glance_office;
/// A document it loaded (opaque).
typedef struct glance_office_document glance_office_document;

/// Starts LibreOffice from `program_folder` (where libmergedlo.so is) with the user profile at
/// `profile_url` (a file: URL of a folder it may write). Returns NULL with the reason in `reason`.
glance_office *glance_office_start(const char *program_folder, const char *profile_url, char *reason,
                                   size_t capacity);

/// Loads the document at `path` (a plain path) with LibreOfficeKit's load `options`. Returns NULL
/// with LibreOffice's reason in `reason` (empty when it gave none).
glance_office_document *glance_office_load(glance_office *office, const char *path, const char *options,
                                           char *reason, size_t capacity);

/// The document's kind: 0 text, 1 spreadsheet, 2 presentation, 3 drawing, else other.
int glance_office_document_kind(glance_office_document *document);

/// How many parts it has (sheets, slides, drawing pages; a text document has one).
int glance_office_part_count(glance_office_document *document);

/// Makes `part` (from 0) the one the size and the drawing refer to.
void glance_office_set_part(glance_office_document *document, int part);

/// The current part's size in twips (1/1440 inch).
void glance_office_document_size(glance_office_document *document, long *width, long *height);

/// A text document's pages as "x, y, width, height; ..." in twips, or NULL; free with
/// glance_office_free_text.
char *glance_office_page_rectangles(glance_office_document *document);

/// Part `part`'s name (a sheet's or a slide's), or NULL; free with glance_office_free_text.
char *glance_office_part_name(glance_office_document *document, int part);

/// Part `part`'s information as LibreOfficeKit gives it (JSON; for a sheet, `"visible": "0"` when
/// it is hidden), or NULL; free with glance_office_free_text.
char *glance_office_part_info(glance_office_document *document, int part);

/// Sets a text document's view as it prints without markup: tracked changes shown as accepted
/// (deletions gone, insertions plain) and no comments or their anchors.
void glance_office_show_as_printed(glance_office_document *document);

/// Frees text the calls above returned.
void glance_office_free_text(glance_office_document *document, char *text);

/// Draws the area at (`x`, `y`) of `width` x `height` twips of the current part into `pixels`:
/// `pixel_width` x `pixel_height` pixels of 4 bytes (B, G, R, A in memory), rows packed.
void glance_office_paint(glance_office_document *document, uint8_t *pixels, int pixel_width, int pixel_height,
                         long x, long y, long width, long height);

/// Closes the document.
void glance_office_close(glance_office_document *document);

#endif
