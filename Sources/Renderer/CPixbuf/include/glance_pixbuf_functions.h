// The gdk-pixbuf functions CPixbuf uses (and GObject's and GLib's, found through it), as one list
// (see GLANCE_LIBRARY in glance_library_loader.h): X(field, symbol, type). The objects are erased
// to `void` (CPixbuf sees no GLib headers); GLib's GError is laid out as its stable ABI lays it.
#ifndef GLANCE_PIXBUF_FUNCTIONS_H
#define GLANCE_PIXBUF_FUNCTIONS_H

#include <stddef.h>
#include <stdint.h>

/// GLib's GError, as CPixbuf reads it: a quark, a code (a GdkPixbufError here), a message.
struct glance_pixbuf_gerror_layout {
    uint32_t domain;
    int code;
    char *message;
};

// glance_pixbuf_gerror is GError; GdkPixbufLoader and GdkPixbuf are `void`; guchar, gsize,
// gboolean, gulong and gpointer are unsigned char, size_t, int, unsigned long and void *.
#define GLANCE_PIXBUF_FUNCTIONS(X)                                                                      \
    X(loader_new_with_type, gdk_pixbuf_loader_new_with_type,                                           \
      void *(const char *image_type, glance_pixbuf_gerror **error))                                     \
    X(loader_write, gdk_pixbuf_loader_write,                                                           \
      int(void *loader, const unsigned char *buffer, size_t count, glance_pixbuf_gerror **error))       \
    X(loader_close, gdk_pixbuf_loader_close, int(void *loader, glance_pixbuf_gerror **error))          \
    X(loader_get_pixbuf, gdk_pixbuf_loader_get_pixbuf, void *(void *loader))                           \
    X(loader_set_size, gdk_pixbuf_loader_set_size, void(void *loader, int width, int height))          \
    X(width, gdk_pixbuf_get_width, int(const void *pixbuf))                                            \
    X(height, gdk_pixbuf_get_height, int(const void *pixbuf))                                          \
    X(channels, gdk_pixbuf_get_n_channels, int(const void *pixbuf))                                    \
    X(bits_per_sample, gdk_pixbuf_get_bits_per_sample, int(const void *pixbuf))                        \
    X(rowstride, gdk_pixbuf_get_rowstride, int(const void *pixbuf))                                    \
    X(read_pixels, gdk_pixbuf_read_pixels, const unsigned char *(const void *pixbuf))                  \
    X(signal_connect_data, g_signal_connect_data,                                                      \
      unsigned long(void *instance, const char *signal, void (*handler)(void), void *data,            \
                    void (*destroy)(void *, void *), int flags))                                       \
    X(object_ref, g_object_ref, void *(void *object))                                                  \
    X(object_unref, g_object_unref, void(void *object))                                                \
    X(error_free, g_error_free, void(glance_pixbuf_gerror *error))

#endif
