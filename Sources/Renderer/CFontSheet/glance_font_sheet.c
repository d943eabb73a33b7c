// See include/glance_font_sheet.h.
#include "glance_font_sheet.h"

#include <cairo-ft.h>
#include <cairo.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// A sample: its script's name, two characters to draw large, and a line.
typedef struct {
    const char *name;
    const char *large;
    const char *line;
} sample;

/// The samples, in the order they are tried: the first the font covers whole is drawn. The
/// scripts a font covers only when it is made for them go first (a CJK font covers Latin too; a
/// Latin one no kanji), then Latin before Greek and Cyrillic.
static const sample samples[] = {
    {"cjk", "\xe6\xb0\xb8\xe5\xad\x97", "\xe6\xb0\xb8\xe5\x92\x8c\xe4\xb9\x9d\xe5\xb9\xb4\xe5\xb2\x81\xe5\x9c\xa8\xe7\x99\xb8\xe4\xb8\x91"},
    {"kana", "\xe3\x81\x82\xe3\x82\xa2", "\xe3\x81\x84\xe3\x82\x8d\xe3\x81\xaf\xe3\x81\xab\xe3\x81\xbb\xe3\x81\xb8\xe3\x81\xa8 "
                                         "\xe3\x82\xa4\xe3\x83\xad\xe3\x83\x8f\xe3\x83\x8b"},
    {"hangul", "\xea\xb0\x80\xeb\x82\x98", "\xeb\x8b\xa4\xeb\x9e\x8c\xec\xa5\x90 \xed\x97\x8c \xec\xb3\x87\xeb\xb0\x94\xed\x80\xb4"},
    {"latin", "Aa", "The quick brown fox jumps over the lazy dog 0123456789"},
    {"greek", "\xce\x91\xce\xb1", "\xce\x9e\xce\xb5\xcf\x83\xce\xba\xce\xb5\xcf\x80\xce\xac\xce\xb6\xcf\x89 \xcf\x84\xce\xb7\xce\xbd \xcf\x88\xcf\x85\xcf\x87\xce\xbf\xcf\x86\xce\xb8\xcf\x8c\xcf\x81\xce\xb1 \xce\xb2\xce\xb4\xce\xb5\xce\xbb\xcf\x85\xce\xb3\xce\xbc\xce\xaf\xce\xb1"},
    {"cyrillic", "\xd0\xaf\xd1\x8f",
     "\xd0\xa1\xd1\x8a\xd0\xb5\xd1\x88\xd1\x8c \xd0\xb6\xd0\xb5 \xd0\xb5\xd1\x89\xd1\x91 \xd1\x8d\xd1\x82\xd0\xb8\xd1\x85 "
     "\xd0\xbc\xd1\x8f\xd0\xb3\xd0\xba\xd0\xb8\xd1\x85 \xd0\xb1\xd1\x83\xd0\xbb\xd0\xbe\xd0\xba"},
};

/// The next character of UTF-8 `text` at `*at` (advanced past it), 0 at its end.
static unsigned long next_character(const char *text, size_t *at) {
    const unsigned char *s = (const unsigned char *)text + *at;
    if (s[0] == 0) return 0;
    int length = s[0] < 0x80 ? 1 : s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;
    unsigned long value = length == 1 ? s[0] : s[0] & (0x3F >> (length - 1));
    for (int i = 1; i < length; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *at += (size_t)i;
            return 0xFFFD;
        }
        value = value << 6 | (s[i] & 0x3F);
    }
    *at += (size_t)length;
    return value;
}

/// Whether `face` has a glyph for every character of `text` but spaces.
static int covers(FT_Face face, const char *text) {
    size_t at = 0;
    unsigned long character;
    while ((character = next_character(text, &at)) != 0) {
        if (character != ' ' && FT_Get_Char_Index(face, character) == 0) return 0;
    }
    return 1;
}

/// Whether `character` is a space that draws nothing past U+00A0 (the spaces of General
/// Punctuation, the ideographic space, the byte order mark).
static int is_blank(FT_ULong character) {
    return (character >= 0x2000 && character <= 0x200F) || (character >= 0x2028 && character <= 0x202F) ||
           character == 0x205F || character == 0x3000 || character == 0xFEFF;
}

/// Up to 24 of the font's own characters (past the space, the controls and the blank spaces, and
/// past ASCII when there are 24 beyond it), as UTF-8, into `out`.
static void own_characters(FT_Face face, char *out, size_t capacity) {
    size_t used = 0;
    int count = 0;
    FT_UInt index;
    // Past ASCII when the font has 24 characters there: a symbol font's punctuation and digits
    // (Adobe's Symbol keeps ASCII's) show less of it than its Greek and its signs.
    int beyond = 0;
    for (FT_ULong character = FT_Get_First_Char(face, &index); index != 0 && beyond < 24;
         character = FT_Get_Next_Char(face, character, &index)) {
        if (character > 0xA0 && !is_blank(character)) beyond++;
    }
    FT_ULong lowest = beyond >= 24 ? 0xA0 : 0x20;
    for (FT_ULong character = FT_Get_First_Char(face, &index); index != 0 && count < 24;
         character = FT_Get_Next_Char(face, character, &index)) {
        if (character <= lowest || (character >= 0x7F && character <= 0xA0) || is_blank(character) ||
            used + 5 >= capacity) {
            continue;
        }
        unsigned char bytes[4];
        int length = character < 0x80 ? 1 : character < 0x800 ? 2 : character < 0x10000 ? 3 : 4;
        // Encoded from a copy: the loop goes on from `character` (shifting it sent the loop back
        // to the start, and a font whose first character past ASCII is U+00A0 drew 24 of it).
        FT_ULong rest = character;
        if (length == 1) {
            bytes[0] = (unsigned char)rest;
        } else {
            for (int i = length - 1; i > 0; i--) {
                bytes[i] = (unsigned char)(0x80 | (rest & 0x3F));
                rest >>= 6;
            }
            bytes[0] = (unsigned char)((0xF0 << (4 - length)) | rest);
        }
        memcpy(out + used, bytes, (size_t)length);
        used += (size_t)length;
        count++;
    }
    out[used] = 0;
}

/// Lays `text` out in the current font from (`x`, `y`), glyph by glyph by the font's own indices
/// (no shaping: Latin, Greek, Cyrillic, CJK, kana and Hangul need none for a sample), into
/// `glyphs` (at most 128; `*count` of them); returns how far it advances.
static double lay_out(cairo_t *cairo, FT_Face face, const char *text, double x, double y, cairo_glyph_t glyphs[128],
                      int *count) {
    double start = x;
    size_t at = 0;
    unsigned long character;
    *count = 0;
    while ((character = next_character(text, &at)) != 0 && *count < 128) {
        cairo_glyph_t *glyph = &glyphs[*count];
        glyph->index = FT_Get_Char_Index(face, character);
        glyph->x = x;
        glyph->y = y;
        cairo_text_extents_t extents;
        cairo_glyph_extents(cairo, glyph, 1, &extents);
        x += extents.x_advance;
        (*count)++;
    }
    return x - start;
}

/// Draws `text` in the current font from (`x`, `y`) (lay_out's glyphs).
static void draw_text(cairo_t *cairo, FT_Face face, const char *text, double x, double y) {
    cairo_glyph_t glyphs[128];
    int count;
    lay_out(cairo, face, text, x, y, glyphs, &count);
    cairo_show_glyphs(cairo, glyphs, count);
}

/// Sets the font size to `size`, or smaller so that `text` fits in `room` (a family's long
/// name on one line).
static void set_size_to_fit(cairo_t *cairo, FT_Face face, const char *text, double size, double room) {
    // Measured again at each new size: hinting rounds each glyph's advance to whole pixels, so
    // the advance does not shrink in proportion.
    cairo_glyph_t glyphs[128];
    int count;
    for (int tries = 0; tries < 4; tries++) {
        cairo_set_font_size(cairo, size);
        double advance = lay_out(cairo, face, text, 0, 0, glyphs, &count);
        if (advance <= room) return;
        size *= room / advance * 0.98;
    }
    cairo_set_font_size(cairo, size);
}

/// Whether the glyph of `letter` is named as that letter (`A`, `A.sc`, `uni0041`), or has no name.
static int names_letter(FT_Face face, char letter) {
    FT_UInt index = FT_Get_Char_Index(face, (FT_ULong)letter);
    char name[64] = {0};
    if (index == 0 || FT_Get_Glyph_Name(face, index, name, sizeof name) != 0 || name[0] == 0) return 1;
    char unicode[16];
    snprintf(unicode, sizeof unicode, "uni%04X", (unsigned)letter);
    return (name[0] == letter && (name[1] == 0 || name[1] == '.' || name[1] == '_')) ||
           strncmp(name, unicode, 7) == 0;
}

/// What cairo's font face keeps alive: FreeType's library and face, and the font's bytes.
typedef struct {
    FT_Library library;
    FT_Face face;
    uint8_t *bytes;
} held_font;

static void release_font(void *data) {
    held_font *held = data;
    FT_Done_Face(held->face);
    FT_Done_FreeType(held->library);
    free(held->bytes);
    free(held);
}

static const cairo_user_data_key_t held_key;

/// Counts the characters `face` maps (code points above the controls).
static long mapped_characters(FT_Face face) {
    long count = 0;
    FT_UInt index;
    for (FT_ULong character = FT_Get_First_Char(face, &index); index != 0;
         character = FT_Get_Next_Char(face, character, &index)) {
        if (character > 0x20 && !(character >= 0x7F && character < 0xA0)) count++;
    }
    return count;
}

/// Page 1: the sample's two leading characters large, the family's name, the line in a waterfall.
static void draw_sheet(cairo_t *cairo, FT_Face face, const glance_font_info *info, const char *large,
                       const char *line, const char *name, int width, int height) {
    double unit = height / 100.0;
    cairo_set_font_size(cairo, 38 * unit);
    draw_text(cairo, face, large, 6 * unit, 42 * unit);
    if (info->name_in_font) {
        // The name whole, smaller when it is long.
        set_size_to_fit(cairo, face, name, 7 * unit, width - 12 * unit);
        draw_text(cairo, face, name, 6 * unit, 58 * unit);
    }
    // The waterfall: the line at falling sizes, cut at the sheet's right edge.
    double y = info->name_in_font ? 70 * unit : 60 * unit;
    for (double points = 6.5; points >= 3 && y < height; points *= 0.7) {
        cairo_set_font_size(cairo, points * unit);
        y += points * unit * 1.3;
        draw_text(cairo, face, line, 6 * unit, y);
    }
}

/// Page 2: the waterfall, larger: the line at rising sizes, from about 9 to 72 points of a page
/// a thousand pixels high, each a line of its own; the name first where the font can write it.
static void draw_waterfall(cairo_t *cairo, FT_Face face, const glance_font_info *info, const char *line,
                           const char *name, int width, int height) {
    double unit = height / 100.0;
    double y = 4 * unit;
    if (info->name_in_font) {
        set_size_to_fit(cairo, face, name, 5 * unit, width - 8 * unit);
        y += 5 * unit;
        draw_text(cairo, face, name, 4 * unit, y);
        y += 3 * unit;
    }
    static const double sizes[] = {1.2, 1.5, 1.8, 2.2, 2.8, 3.6, 4.8, 6.4, 8.5, 11};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double size = sizes[i] * unit;
        if (y + size * 1.35 > height) break;
        cairo_set_font_size(cairo, size);
        y += size * 1.35;
        draw_text(cairo, face, line, 4 * unit, y);
    }
}

/// Page 3: the glyph coverage: every character the font maps, in code point order, one a cell of
/// a grid sixteen wide on a light grid, as many as the page holds.
static void draw_coverage(cairo_t *cairo, FT_Face face, int width, int height) {
    const int columns = 16;
    double cell = width / (double)columns;
    int rows = (int)(height / cell);
    cairo_set_source_rgb(cairo, 0.85, 0.85, 0.85);
    cairo_set_line_width(cairo, width / 1024.0 > 1 ? width / 1024.0 : 1);
    for (int column = 0; column <= columns; column++) {
        cairo_move_to(cairo, column * cell, 0);
        cairo_line_to(cairo, column * cell, rows * cell);
    }
    for (int row = 0; row <= rows; row++) {
        cairo_move_to(cairo, 0, row * cell);
        cairo_line_to(cairo, width, row * cell);
    }
    cairo_stroke(cairo);
    cairo_set_source_rgb(cairo, 0, 0, 0);
    cairo_set_font_size(cairo, cell * 0.6);
    int at = 0;
    FT_UInt index;
    for (FT_ULong character = FT_Get_First_Char(face, &index); index != 0 && at < rows * columns;
         character = FT_Get_Next_Char(face, character, &index)) {
        if (character <= 0x20 || (character >= 0x7F && character < 0xA0)) continue;
        cairo_glyph_t glyph = {.index = index, .x = 0, .y = 0};
        cairo_text_extents_t extents;
        cairo_glyph_extents(cairo, &glyph, 1, &extents);
        // Centred in its cell by its ink.
        glyph.x = (at % columns) * cell + (cell - extents.width) / 2 - extents.x_bearing;
        glyph.y = (at / columns) * cell + (cell - extents.height) / 2 - extents.y_bearing;
        cairo_show_glyphs(cairo, &glyph, 1);
        at++;
    }
}

int glance_font_page(const uint8_t *data, size_t size, void *context, int width, int height, int page,
                     glance_font_info *info, char *reason, size_t capacity) {
    memset(info, 0, sizeof *info);
    info->pages = 3;
    if (page < 1 || page > info->pages) {
        snprintf(reason, capacity, "a font has pages 1 to %d", info->pages);
        return 0;
    }
    cairo_t *cairo = context;
    held_font *held = calloc(1, sizeof *held);
    if (held == NULL || (held->bytes = malloc(size ? size : 1)) == NULL) {
        snprintf(reason, capacity, "out of memory for the font");
        free(held);
        return 0;
    }
    memcpy(held->bytes, data, size);
    FT_Error error = FT_Init_FreeType(&held->library);
    if (error == 0) error = FT_New_Memory_Face(held->library, held->bytes, (FT_Long)size, 0, &held->face);
    // A bitmap font (PCF, BDF) has strikes of fixed sizes, which cairo scales to the sheet's.
    if (error != 0 || held->face == NULL ||
        ((held->face->face_flags & FT_FACE_FLAG_SCALABLE) == 0 && held->face->num_fixed_sizes == 0)) {
        const char *text = FT_Error_String(error);
        snprintf(reason, capacity, "%s", error != 0 ? (text != NULL ? text : "FreeType could not read the font")
                                                    : "a font with neither outlines nor bitmaps");
        if (held->face != NULL) FT_Done_Face(held->face);
        if (held->library != NULL) FT_Done_FreeType(held->library);
        free(held->bytes);
        free(held);
        return 0;
    }
    FT_Face face = held->face;
    snprintf(info->family, sizeof info->family, "%s", face->family_name ? face->family_name : "");
    snprintf(info->style, sizeof info->style, "%s", face->style_name ? face->style_name : "");
    info->faces = face->num_faces;
    info->glyphs = face->num_glyphs;
    info->mapped = mapped_characters(face);
    cairo_font_face_t *font = cairo_ft_font_face_create_for_ft_face(face, FT_LOAD_COLOR);
    if (cairo_font_face_set_user_data(font, &held_key, held, release_font) != CAIRO_STATUS_SUCCESS) {
        cairo_font_face_destroy(font);
        release_font(held);
        snprintf(reason, capacity, "out of memory for the font");
        return 0;
    }
    // The sample: the first script the font covers whole, else its own characters.
    const char *large = NULL, *line = NULL;
    char own[128];
    // A symbol font's character map (Windows' symbol map, Adobe's own encodings) maps letters to
    // its symbols: its own characters are its sample.
    int is_unicode = face->charmap != NULL && face->charmap->encoding == FT_ENCODING_UNICODE;
    for (int i = 0; i < face->num_charmaps; i++) {
        if (face->charmaps[i]->encoding == FT_ENCODING_MS_SYMBOL) is_unicode = 0;
    }
    // And a font that maps Latin letters to glyphs named otherwise (Adobe's Symbol: `A` to Alpha).
    if (is_unicode && FT_HAS_GLYPH_NAMES(face) && !names_letter(face, 'A') && !names_letter(face, 'a')) is_unicode = 0;
    for (size_t i = 0; is_unicode && i < sizeof samples / sizeof samples[0]; i++) {
        if (covers(face, samples[i].large) && covers(face, samples[i].line)) {
            snprintf(info->sample, sizeof info->sample, "%s", samples[i].name);
            large = samples[i].large;
            line = samples[i].line;
            break;
        }
    }
    char pair[16] = {0};
    if (large == NULL) {
        own_characters(face, own, sizeof own);
        size_t at = 0;
        next_character(own, &at);
        next_character(own, &at);
        memcpy(pair, own, at < sizeof pair - 1 ? at : sizeof pair - 1);
        snprintf(info->sample, sizeof info->sample, "symbols");
        large = pair;
        line = own;
    }
    char name[200];
    snprintf(name, sizeof name, "%s %s", info->family, info->style);
    info->name_in_font = is_unicode && covers(face, name);
    cairo_set_font_face(cairo, font);
    cairo_set_source_rgb(cairo, 0, 0, 0);
    switch (page) {
    case 1: draw_sheet(cairo, face, info, large, line, name, width, height); break;
    case 2: draw_waterfall(cairo, face, info, line, name, width, height); break;
    default: draw_coverage(cairo, face, width, height); break;
    }
    cairo_set_font_face(cairo, NULL);
    cairo_status_t status = cairo_status(cairo);
    cairo_font_face_destroy(font);
    if (status != CAIRO_STATUS_SUCCESS) {
        snprintf(reason, capacity, "cairo could not draw the font: %s", cairo_status_to_string(status));
        return 0;
    }
    return 1;
}
