// The poppler-glib functions CPoppler uses, as one list (see GLANCE_LIBRARY in
// glance_library_loader.h): X(field, symbol, type). The types are written with names the includer
// defines: CPoppler erases them to `void` (it sees no GLib headers), and the tests' ABI check
// (Tests/Renderer/CRenderABICheck) defines them as poppler's, GLib's and cairo's own types, so that each
// type here is held against poppler's header. Only macros: nothing here is visible to Swift.
#ifndef GLANCE_POPPLER_FUNCTIONS_H
#define GLANCE_POPPLER_FUNCTIONS_H

// glance_poppler_document is PopplerDocument, glance_poppler_page PopplerPage, glance_gerror
// GError and glance_cairo cairo_t. GQuark is a guint32.
#define GLANCE_POPPLER_FUNCTIONS(X)                                                                         \
    X(document_new_from_fd, poppler_document_new_from_fd,                                                   \
      glance_poppler_document *(int fd, const char *password, glance_gerror **error))                       \
    X(document_get_n_pages, poppler_document_get_n_pages, int(glance_poppler_document *document))           \
    X(document_get_page, poppler_document_get_page,                                                         \
      glance_poppler_page *(glance_poppler_document *document, int index))                                  \
    X(page_get_size, poppler_page_get_size, void(glance_poppler_page *page, double *width, double *height)) \
    X(page_render, poppler_page_render, void(glance_poppler_page *page, glance_cairo *cairo))               \
    X(error_quark, poppler_error_quark, uint32_t(void))

#endif
