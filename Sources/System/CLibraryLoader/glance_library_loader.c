// See include/glance_library_loader.h.
#define _GNU_SOURCE
#include "glance_library_loader.h"

#include <dlfcn.h>
#include <stdio.h>

int glance_library_load(const char *soname, const char *const names[], void *slots[], size_t count, char *reason,
                        size_t capacity) {
    void *library = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (library == NULL) {
        const char *detail = dlerror();
        snprintf(reason, capacity, "%s", detail != NULL ? detail : "dlopen failed");
        return 0;
    }
    for (size_t i = 0; i < count; i++) {
        dlerror();
        slots[i] = dlsym(library, names[i]);
        if (slots[i] == NULL) {
            const char *detail = dlerror();
            snprintf(reason, capacity, "%s has no %s (%s)", soname, names[i], detail != NULL ? detail : "not found");
            return 0;
        }
    }
    return 1;
}
