// Shim for the graphics stack: glib, cairo, pango and pangocairo. (poppler-glib is loaded on
// first use by CPoppler, so its header is not here: nothing can call it unloaded.)
#ifndef GLANCE_CGRAPHICS_SHIM_H
#define GLANCE_CGRAPHICS_SHIM_H

#include <glib.h>
#include <glib-object.h>
#include <cairo.h>
#include <pango/pangocairo.h>
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
