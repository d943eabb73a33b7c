// C shim that loads a shared library on first use and looks up its functions, for the libraries a
// process may never need: poppler-glib (CPoppler), libcrypto (CDigest), libchafa
// (CTerminalPicture), libtiff (CTIFF), libheif (CHEIF) and librsvg (CSVG).
//
// The one error convention of the C shims: a function reports failure by its return value (1 on
// success and 0 on failure, a handle or NULL, or a status code of its own) and, where the caller
// passes a buffer and its capacity, copies a one-line reason into it (NUL-terminated, cut to
// fit). A shim never aborts the process and never leaves errno as the only account of a failure.
#ifndef GLANCE_LIBRARY_LOADER_H
#define GLANCE_LIBRARY_LOADER_H

#include <stddef.h>

/// Opens the library `soname` (lazy binding, local scope: its symbols stay out of the process's
/// global scope) and looks up `count` functions, `names[i]` into `slots[i]`. Returns 1 when all
/// were found; else 0, with the loader's reason (NUL-terminated, cut to fit) in `reason`. A library
/// found without all its functions stays loaded: unloading one that may have started threads or
/// registered types is not safe. Not synchronised: callers run it once (GLANCE_LIBRARY does).
int glance_library_load(const char *soname, const char *const names[], void *slots[], size_t count, char *reason,
                        size_t capacity);

// --- One list per library --------------------------------------------------------------------
//
// A shim names the functions it uses once, as a list macro that takes another macro X and
// applies it to each function: X(field, symbol, type), where `field` is the struct member the
// shim calls through, `symbol` the library's exported name and `type` the function's type (a
// function type such as `int(void *)`, not a pointer to one). For example:
//
//     #define EXAMPLE_FUNCTIONS(X) X(open, example_open, void *(const char *)) X(close, example_close, void(void *))
//
//     GLANCE_LIBRARY(example, "libexample.so.1", EXAMPLE_FUNCTIONS, GLANCE_LIBRARY_NO_START)
//
// Everything else comes from that list, so a name cannot drift from its slot or its type.
// Where the library's own header is included, GLANCE_TYPED takes the type from it.

/// X(field, symbol, the type the library's header gives symbol).
#define GLANCE_TYPED(X, field, symbol) X(field, symbol, __typeof__(symbol))

/// The X of a list that declares one function pointer member.
#define GLANCE_LIBRARY_MEMBER(field, symbol, type) __typeof__(type) *field;
/// The X of a list that gives one symbol's name.
#define GLANCE_LIBRARY_SYMBOL(field, symbol, type) #symbol,

/// The `start` of a library that needs nothing once its functions are found.
#define GLANCE_LIBRARY_NO_START(failure, capacity) 1

/// Defines, in the shim that uses it (every name is static, prefixed by `name`):
///   - `name`, a struct of one typed function pointer per entry of `LIST`, read-only once loaded;
///   - `name##_symbols`, the entries' symbol names, in the same order;
///   - `name##_ensure(reason, capacity)`: loads `soname` the first time it is called (once per
///     process, under pthread_once) and fills `name`; returns 1 when every function was found
///     and `start` succeeded, else 0 with the reason (kept from the first call) copied into
///     `reason` when it is not NULL.
/// `start(failure, capacity)` runs once after the functions are found, for a library that must be
/// initialised: it returns 1, or 0 after writing its reason into `failure`. The shim includes
/// <pthread.h>, <stdio.h> and <string.h>.
///
/// The struct is filled as an array of pointers: each member is one function pointer, in the
/// list's order, so the struct has as many pointer-sized slots as there are names and no padding
/// (the static assertion). Function and object pointers share one representation on the
/// platforms glance runs on (POSIX requires it of dlsym).
#define GLANCE_LIBRARY(name, soname, LIST, start) \
    static struct {                               \
        LIST(GLANCE_LIBRARY_MEMBER)               \
    } name;                                       \
    GLANCE_LIBRARY_LOADER(name, soname, LIST, start, static)

/// For a shim in several files: in its private header, the type of `name` (`name##_functions`)
/// and the declarations of `name` and `name##_ensure`, seen by every file of the shim and by no
/// other module (hidden).
#define GLANCE_LIBRARY_DECLARE(name, LIST)                                                    \
    typedef struct {                                                                          \
        LIST(GLANCE_LIBRARY_MEMBER)                                                           \
    } name##_functions;                                                                       \
    __attribute__((visibility("hidden"))) extern name##_functions name;                       \
    __attribute__((visibility("hidden"))) int name##_ensure(char *reason, size_t capacity);

/// ... and in one of its files, their definitions, as GLANCE_LIBRARY makes them.
#define GLANCE_LIBRARY_DEFINE(name, soname, LIST, start) \
    name##_functions name;                               \
    GLANCE_LIBRARY_LOADER(name, soname, LIST, start, )

/// What GLANCE_LIBRARY and GLANCE_LIBRARY_DEFINE share: the symbol names, the one load, and
/// `name##_ensure` with the given linkage (`static`, or none).
#define GLANCE_LIBRARY_LOADER(name, soname, LIST, start, linkage)                                               \
    static const char *const name##_symbols[] = {LIST(GLANCE_LIBRARY_SYMBOL)};                                  \
    _Static_assert(sizeof(name) == sizeof(name##_symbols) / sizeof(name##_symbols[0]) * sizeof(void *),         \
                   #name ": one function pointer per symbol");                                                  \
    static pthread_once_t name##_once = PTHREAD_ONCE_INIT;                                                      \
    static int name##_loaded;                                                                                   \
    static char name##_failure[512];                                                                            \
    static void name##_load(void) {                                                                             \
        void *slots[sizeof(name##_symbols) / sizeof(name##_symbols[0])];                                        \
        name##_loaded = glance_library_load(soname, name##_symbols, slots, sizeof(slots) / sizeof(slots[0]),    \
                                           name##_failure, sizeof(name##_failure));                             \
        if (!name##_loaded) return;                                                                             \
        memcpy(&name, slots, sizeof(name));                                                                     \
        name##_loaded = start(name##_failure, sizeof(name##_failure));                                          \
    }                                                                                                           \
    linkage int name##_ensure(char *reason, size_t capacity) {                                                  \
        pthread_once(&name##_once, name##_load);                                                                \
        if (!name##_loaded && reason != NULL && capacity > 0) snprintf(reason, capacity, "%s", name##_failure); \
        return name##_loaded;                                                                                   \
    }

#endif
