// PostScript and EPS through Ghostscript's library (Debian's libgs-dev), loaded the first time
// such a file comes: the interpreter, its fonts and its devices are mapped by no other batch.
#ifndef GLANCE_GHOSTSCRIPT_H
#define GLANCE_GHOSTSCRIPT_H

#include "glance_failure.h"

#include <stddef.h>
#include <stdint.h>

/// Loads libgs (`libgs.so.10`) once per process; later calls return the first call's result.
/// Returns 1 when ready, else 0 with the reason in `reason`.
int glance_gs_load(char *reason, size_t capacity);

/// A page drawn: 8-bit RGB rows, packed, which glance_gs_page_free frees.
typedef struct {
    uint8_t *pixels;
    int width, height;
} glance_gs_page;

/// How a document is drawn.
typedef struct {
    /// Pixels per inch.
    double resolution;
    /// The page drawn, from 1.
    int page;
    /// The page's size in points, which the document cannot change.
    double width, height;
    /// 1: an EPS, moved so that its BoundingBox's lower left corner (`origin_x`, `origin_y`) is
    /// the page's, and shown after it ran.
    int eps;
    double origin_x, origin_y;
    /// The most pixels the page may have: past it, drawing stops.
    uint64_t max_pixels;
} glance_gs_request;

/// Draws one page of the PostScript program `data` (`size` bytes), fed to the interpreter as a
/// string, so that it names no file: -dSAFER, so that it may open none either (a `run` or a
/// `file` of another path is refused), and the page drawn by Ghostscript's display device into
/// memory, copied out when it is shown (no file is written; the program's own output is kept
/// for the reason). Returns 1 with the page; else 0 with the interpreter's error in `reason`
/// and what failed (REFUSED for a file the program asked for, TOO_LARGE, CORRUPT). Ghostscript
/// runs one interpreter at a time in a process: calls are serialised.
int glance_gs_render(const uint8_t *data, size_t size, const glance_gs_request *request, glance_gs_page *page,
                     char *reason, size_t capacity, glance_failure *failure);

/// Frees a page's pixels.
void glance_gs_page_free(glance_gs_page *page);

#endif
