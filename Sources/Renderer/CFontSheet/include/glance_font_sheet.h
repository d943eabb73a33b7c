// A font file drawn as a sheet: its name and a sample in the font itself, through FreeType (the
// font loaded from memory, never installed) and cairo's FreeType backend, as pango and cairo use
// them.
#ifndef GLANCE_FONT_SHEET_H
#define GLANCE_FONT_SHEET_H

#include <stddef.h>
#include <stdint.h>

/// What the sheet shows of a font.
typedef struct {
    /// The family and style names, UTF-8 (from the font's own tables).
    char family[128];
    char style[64];
    /// The faces in the file (a collection has several; the first is drawn), and the first
    /// face's glyphs.
    long faces, glyphs;
    /// The sample drawn: "latin", "greek", "cyrillic", "cjk", "kana", "hangul", or "symbols" (the
    /// font's own characters, for a font that covers none of the others).
    char sample[16];
    /// Whether the name was drawn in the font itself (else it is left out: the sample is never
    /// drawn in another font).
    int name_in_font;
    /// The characters the first face maps (above the control characters).
    long mapped;
    /// The pages a font has: 1 the sheet, 2 the waterfall, 3 the glyph coverage.
    int pages;
} glance_font_info;

/// Draws page `page` of the font of `size` bytes at `data` (TrueType, OpenType with CFF, a
/// collection, WOFF or WOFF2; a variable font at its default instance; colour glyphs where
/// FreeType loads them) on the cairo context `cairo` (a white `width` x `height` surface), all in
/// the font itself: page 1 the sheet (the sample's two leading characters large, the family's
/// name, then the sample in a waterfall of sizes), page 2 the waterfall larger (the sample from
/// about 9 to 72 points), page 3 the glyph coverage (every character the font maps, in code point
/// order, in a grid sixteen wide, as many as the page holds). Returns 1 with what it drew in
/// `info`; else 0 with FreeType's reason (or that there is no such page).
int glance_font_page(const uint8_t *data, size_t size, void *cairo, int width, int height, int page,
                     glance_font_info *info, char *reason, size_t capacity);

#endif
