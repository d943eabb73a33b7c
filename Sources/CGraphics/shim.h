// Shim for the graphics stack: glib, cairo, poppler-glib, pango and pangocairo.
// pkg-config gives the include paths of pangocairo (glib, cairo, pango); poppler-glib's
// headers need only those, so they are named by their path under /usr/include.
#ifndef GLANCE_CGRAPHICS_SHIM_H
#define GLANCE_CGRAPHICS_SHIM_H

#include <glib.h>
#include <glib-object.h>
#include <cairo.h>
#include <poppler/glib/poppler.h>
#include <pango/pangocairo.h>
#include <fontconfig/fontconfig.h>

/// `g_object_unref` for any GObject pointer: Swift sees typed pointers, GObject wants gpointer.
static inline void glance_object_unref(void *object) {
    if (object != NULL) g_object_unref(object);
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

/// The quark of poppler's error domain (a function-like macro in C, so Swift cannot call it).
static inline GQuark glance_poppler_error_quark(void) { return POPPLER_ERROR; }

#endif
