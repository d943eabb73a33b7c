// CTerminalPicture declares the little of libchafa's ABI it uses (glance_chafa_abi.h) instead of
// including its headers, so that glance links neither libchafa nor GLib. This file, built with the
// tests only, holds each of those declarations against the real headers: a mismatch does not
// compile.
#include "glance_chafa_abi_check.h"

#include <chafa.h>
#include <stddef.h>

#include "glance_chafa_abi.h"

_Static_assert(GLANCE_CHAFA_PIXEL_MODE_SYMBOLS == CHAFA_PIXEL_MODE_SYMBOLS, "ChafaPixelMode symbols");
_Static_assert(GLANCE_CHAFA_PIXEL_MODE_SIXELS == CHAFA_PIXEL_MODE_SIXELS, "ChafaPixelMode sixels");
_Static_assert(GLANCE_CHAFA_PIXEL_MODE_KITTY == CHAFA_PIXEL_MODE_KITTY, "ChafaPixelMode kitty");
_Static_assert(GLANCE_CHAFA_PIXEL_MODE_ITERM2 == CHAFA_PIXEL_MODE_ITERM2, "ChafaPixelMode iTerm2");
_Static_assert(GLANCE_CHAFA_CANVAS_MODE_TRUECOLOR == CHAFA_CANVAS_MODE_TRUECOLOR, "ChafaCanvasMode truecolor");
_Static_assert(GLANCE_CHAFA_PIXEL_RGBA8_UNASSOCIATED == CHAFA_PIXEL_RGBA8_UNASSOCIATED, "ChafaPixelType RGBA8");
_Static_assert(GLANCE_CHAFA_SYMBOL_TAG_SPACE == CHAFA_SYMBOL_TAG_SPACE, "ChafaSymbolTags space");
_Static_assert(GLANCE_CHAFA_SYMBOL_TAG_BLOCK == CHAFA_SYMBOL_TAG_BLOCK, "ChafaSymbolTags block");
_Static_assert(GLANCE_CHAFA_SYMBOL_TAG_BORDER == CHAFA_SYMBOL_TAG_BORDER, "ChafaSymbolTags border");
_Static_assert(GLANCE_CHAFA_SYMBOL_TAG_WIDE == CHAFA_SYMBOL_TAG_WIDE, "ChafaSymbolTags wide");
_Static_assert(GLANCE_CHAFA_SYMBOL_TAG_AMBIGUOUS == CHAFA_SYMBOL_TAG_AMBIGUOUS, "ChafaSymbolTags ambiguous");
_Static_assert(sizeof(gint) == sizeof(int) && sizeof(gboolean) == sizeof(int), "gint and gboolean are int");
_Static_assert(sizeof(gfloat) == sizeof(float) && sizeof(gsize) == sizeof(size_t), "gfloat and gsize");
_Static_assert(sizeof(ChafaPixelMode) == sizeof(int) && sizeof(ChafaSymbolTags) == sizeof(int), "enums are int");
_Static_assert(offsetof(GString, str) == offsetof(struct glance_gstring, str), "GString.str");
_Static_assert(offsetof(GString, len) == offsetof(struct glance_gstring, len), "GString.len");

int glance_chafa_header_version(void) {
    return CHAFA_MAJOR_VERSION * 10000 + CHAFA_MINOR_VERSION * 100 + CHAFA_MICRO_VERSION;
}
