// C shim that loads poppler-glib the first time a PDF comes, rather than when a worker starts.
#ifndef GLANCE_POPPLER_H
#define GLANCE_POPPLER_H

#include <stddef.h>
#include <stdint.h>

/// Loads poppler-glib (`libpoppler-glib.so.8`) and looks up the functions below, once per
/// process; later calls return the first call's result. Returns 1 when they are ready, 0 when
/// not, with the loader's reason (NUL-terminated, cut to fit) in `reason`.
///
/// Why: poppler-glib brings 16 more shared libraries into a process (poppler, NSS, NSPR,
/// OpenJPEG, libtiff, ...); mapping and relocating them took about 7 ms of CPU, half of a
/// worker's start, paid by every worker whether or not its batch holds a PDF. Linked lazily, a
/// folder of text or images never pays it. The worker's seccomp filter allows what this needs
/// (read-only opens, mmap, mprotect) and its bubblewrap view has /usr and /etc/ld.so.cache.
///
/// The functions below are poppler-glib's own, with its types erased to pointers (this target
/// sees no glib headers): documents and pages are GObjects, `error` is a `GError **`, `cairo`
/// a `cairo_t *`. Each may be called only after this returned 1.
int glance_poppler_load(char *reason, size_t capacity);

/// `poppler_document_new_from_fd(fd, NULL, error)`: poppler owns `fd` from then on.
void *glance_poppler_document_new_from_fd(int fd, void **error);
/// `poppler_document_get_n_pages`.
int glance_poppler_document_get_n_pages(void *document);
/// `poppler_document_get_page`: a new reference, or NULL.
void *glance_poppler_document_get_page(void *document, int index);
/// `poppler_page_get_size`: the size in points, with the page's /Rotate applied.
void glance_poppler_page_get_size(void *page, double *width, double *height);
/// `poppler_page_render`.
void glance_poppler_page_render(void *page, void *cairo);
/// `poppler_error_quark()` (`POPPLER_ERROR`): the domain of poppler's own errors.
uint32_t glance_poppler_error_quark(void);

/// `POPPLER_ERROR_ENCRYPTED`: the code, in poppler's domain, of a document that needs a password.
enum { GLANCE_POPPLER_ERROR_ENCRYPTED = 1 };

#endif
