// Shim for the graphics stack: glib, cairo, pango and pangocairo. (poppler-glib is loaded on
// first use by CPoppler, so its header is not here: nothing can call it unloaded.)
#ifndef GLANCE_CGRAPHICS_SHIM_H
#define GLANCE_CGRAPHICS_SHIM_H

#include <glib.h>
#include <glib-object.h>
#include <cairo.h>
#include <pango/pangocairo.h>
#include <pango/pangofc-font.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <fontconfig/fontconfig.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// `g_object_unref` for any GObject pointer: Swift sees typed pointers, GObject wants gpointer.
static inline void glance_object_unref(void *object) {
    if (object != NULL) g_object_unref(object);
}

/// A new RGB24 image surface whose pixels start white, the paper every page is drawn on (cairo's
/// own surfaces start cleared to zero, which cost a pass over the page before painting it white).
/// The pixels are freed with the surface. NULL when out of memory or the size is impossible.
static inline cairo_surface_t *glance_white_rgb24_surface(int width, int height) {
    static const cairo_user_data_key_t pixels_key;
    int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, width);
    if (stride <= 0 || height <= 0 || (size_t)height > SIZE_MAX / (size_t)stride) return NULL;
    size_t count = (size_t)stride * (size_t)height;
    unsigned char *pixels = malloc(count);
    if (pixels == NULL) return NULL;
    memset(pixels, 0xFF, count);
    cairo_surface_t *surface = cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_RGB24, width, height, stride);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS ||
        cairo_surface_set_user_data(surface, &pixels_key, pixels, free) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(surface);
        free(pixels);
        return NULL;
    }
    return surface;
}

/// The cairo font a run of a pango layout is set in (pango-cairo's fonts are cairo fonts); NULL
/// if it has none. The font stays the layout's: the caller references it to keep it.
static inline cairo_scaled_font_t *glance_run_scaled_font(PangoLayoutRun *run) {
    if (run == NULL || run->item == NULL || run->item->analysis.font == NULL) return NULL;
    if (!PANGO_IS_FC_FONT(run->item->analysis.font)) return NULL;
    cairo_scaled_font_t *font = pango_cairo_font_get_scaled_font(PANGO_CAIRO_FONT(run->item->analysis.font));
    if (font == NULL || cairo_scaled_font_status(font) != CAIRO_STATUS_SUCCESS) return NULL;
    return font;
}

/// Opens, in `library`, Glance's own FreeType face for the font of `run` (whose cairo font is
/// `scaled`), at the size cairo sets its face to. Cairo's own face is not used: cairo does not
/// keep it locked between calls (see cairo_ft_scaled_font_lock_face), so another thread drawing
/// with cairo could change it under us. NULL when the font is not a plain scalable outline font
/// at a plain size (synthetic bold or slant, a transformed size): cairo must draw it.
static inline FT_Face glance_open_run_face(FT_Library library, PangoLayoutRun *run, cairo_scaled_font_t *scaled) {
    if (library == NULL || run == NULL || scaled == NULL) return NULL;
    FcPattern *pattern = pango_fc_font_get_pattern(PANGO_FC_FONT(run->item->analysis.font));
    if (pattern == NULL) return NULL;
    FcChar8 *file = NULL;
    int index = 0;
    FcBool flag = FcFalse;
    FcMatrix *matrix = NULL;
    if (FcPatternGetString(pattern, FC_FILE, 0, &file) != FcResultMatch || file == NULL) return NULL;
    if (FcPatternGetInteger(pattern, FC_INDEX, 0, &index) != FcResultMatch) index = 0;
    if (FcPatternGetBool(pattern, FC_EMBOLDEN, 0, &flag) == FcResultMatch && flag) return NULL;
    if (FcPatternGetBool(pattern, FC_VERTICAL_LAYOUT, 0, &flag) == FcResultMatch && flag) return NULL;
    if (FcPatternGetMatrix(pattern, FC_MATRIX, 0, &matrix) == FcResultMatch && matrix != NULL &&
        (matrix->xx != 1 || matrix->xy != 0 || matrix->yx != 0 || matrix->yy != 1))
        return NULL;
    cairo_matrix_t scale;
    cairo_scaled_font_get_scale_matrix(scaled, &scale);
    if (scale.xy != 0 || scale.yx != 0 || !(scale.xx > 0) || !(scale.yy > 0) || scale.xx > 10000 || scale.yy > 10000)
        return NULL;
    FT_Face face = NULL;
    if (FT_New_Face(library, (const char *)file, index, &face) != 0) return NULL;
    // As cairo sizes a scalable face (_cairo_ft_unscaled_font_set_scale): 26.6 points at 72 dpi.
    if (!FT_IS_SCALABLE(face) || FT_HAS_COLOR(face) ||
        FT_Set_Char_Size(face, (FT_F26Dot6)(scale.xx * 64.0 + .5), (FT_F26Dot6)(scale.yy * 64.0 + .5), 0, 0) != 0) {
        FT_Done_Face(face);
        return NULL;
    }
    return face;
}

/// A glyph as FreeType rendered it: 8-bit coverage rows, `pitch` bytes apart, placed `left`
/// pixels right of and `top` pixels above its origin. `rows` point into the face's glyph slot,
/// valid until the face loads another glyph.
typedef struct {
    int width, height, pitch, left, top;
    const unsigned char *rows;
} glance_glyph_coverage;

/// Loads and renders `glyph` of `face` as cairo does for text drawn unhinted with gray
/// antialiasing (embedded bitmaps allowed, as fontconfig allows them). Returns 0, or -1 when the
/// glyph is not 8-bit coverage (a one-bit bitmap glyph: cairo must draw it) or FreeType failed.
static inline int glance_render_glyph(FT_Face face, unsigned glyph, glance_glyph_coverage *coverage) {
    if (FT_Load_Glyph(face, glyph, FT_LOAD_NO_HINTING | FT_LOAD_RENDER | FT_LOAD_TARGET_NORMAL) != 0) return -1;
    FT_GlyphSlot slot = face->glyph;
    int empty = slot->bitmap.width == 0 || slot->bitmap.rows == 0;
    if (!empty && (slot->bitmap.pixel_mode != FT_PIXEL_MODE_GRAY || slot->bitmap.pitch < 0)) return -1;
    coverage->width = empty ? 0 : (int)slot->bitmap.width;
    coverage->height = empty ? 0 : (int)slot->bitmap.rows;
    coverage->pitch = slot->bitmap.pitch;
    coverage->left = slot->bitmap_left;
    coverage->top = slot->bitmap_top;
    coverage->rows = slot->bitmap.buffer;
    return 0;
}

/// Drops a log message. poppler-glib reports broken files through g_log("Poppler", ...);
/// Glance turns failures into typed errors, so the log lines would only be noise on stderr.
static inline void glance_discard_log(const gchar *domain, GLogLevelFlags level,
                                      const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

/// Silences the "Poppler" log domain (and glib's default handler for it).
static inline void glance_silence_poppler_log(void) {
    g_log_set_handler("Poppler", (GLogLevelFlags)(G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION),
                      glance_discard_log, NULL);
}

#endif
