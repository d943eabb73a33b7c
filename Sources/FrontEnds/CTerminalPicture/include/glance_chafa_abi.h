// The part of libchafa's ABI (soname libchafa.so.0) that CTerminalPicture uses, declared here so
// that glance compiles and links without libchafa's and GLib's headers and libraries: the library
// is loaded on first use. Each value is checked against the real headers when the tests are built
// (Tests/FrontEnds/CChafaABICheck: a static assertion per value).
#ifndef GLANCE_CHAFA_ABI_H
#define GLANCE_CHAFA_ABI_H

#include <stddef.h>

/// ChafaPixelMode (chafa-canvas-config.h).
enum {
    GLANCE_CHAFA_PIXEL_MODE_SYMBOLS = 0,
    GLANCE_CHAFA_PIXEL_MODE_SIXELS = 1,
    GLANCE_CHAFA_PIXEL_MODE_KITTY = 2,
    GLANCE_CHAFA_PIXEL_MODE_ITERM2 = 3,
};

/// ChafaCanvasMode's CHAFA_CANVAS_MODE_TRUECOLOR (chafa-canvas-config.h).
enum { GLANCE_CHAFA_CANVAS_MODE_TRUECOLOR = 0 };

/// ChafaPixelType's CHAFA_PIXEL_RGBA8_UNASSOCIATED (chafa-common.h).
enum { GLANCE_CHAFA_PIXEL_RGBA8_UNASSOCIATED = 4 };

/// ChafaSymbolTags (chafa-symbol-map.h).
enum {
    GLANCE_CHAFA_SYMBOL_TAG_SPACE = 1 << 0,
    GLANCE_CHAFA_SYMBOL_TAG_BLOCK = 1 << 3,
    GLANCE_CHAFA_SYMBOL_TAG_BORDER = 1 << 4,
    GLANCE_CHAFA_SYMBOL_TAG_WIDE = 1 << 18,
    GLANCE_CHAFA_SYMBOL_TAG_AMBIGUOUS = 1 << 19,
};

/// GLib's GString, as chafa_canvas_print returns it.
struct glance_gstring {
    char *str;
    size_t len;
    size_t allocated_len;
};

#endif
