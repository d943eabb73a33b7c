// C shim that loads a shared library on first use and looks up its functions, for the libraries a
// process may never need (poppler-glib in CPoppler, libcrypto in CDigest).
#ifndef GLANCE_LIBRARY_LOADER_H
#define GLANCE_LIBRARY_LOADER_H

#include <stddef.h>

/// Opens the library `soname` (lazy binding, local scope: its symbols stay out of the process's
/// global scope) and looks up `count` functions, `names[i]` into `*slots[i]`. Returns 1 when all
/// were found; else 0, with the loader's reason (NUL-terminated, cut to fit) in `reason`. A library
/// found without all its functions stays loaded: unloading one that may have started threads or
/// registered types is not safe. Not synchronised: callers run it once (`pthread_once`).
int glance_library_load(const char *soname, const char *const names[], void **const slots[], size_t count,
                        char *reason, size_t capacity);

#endif
