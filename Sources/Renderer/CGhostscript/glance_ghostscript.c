// See include/glance_ghostscript.h.
#include "glance_ghostscript.h"

#include <ghostscript/gdevdsp.h>
#include <ghostscript/gserrors.h>
#include <ghostscript/iapi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glance_library_loader.h"

/// libgs's functions, typed by its own header, found once and read-only after.
#define GS_FUNCTIONS(X)                                          \
    GLANCE_TYPED(X, new_instance, gsapi_new_instance)            \
    GLANCE_TYPED(X, delete_instance, gsapi_delete_instance)      \
    GLANCE_TYPED(X, set_stdio, gsapi_set_stdio)                  \
    GLANCE_TYPED(X, register_callout, gsapi_register_callout)    \
    GLANCE_TYPED(X, remove_control_path, gsapi_remove_control_path) \
    GLANCE_TYPED(X, set_arg_encoding, gsapi_set_arg_encoding)    \
    GLANCE_TYPED(X, init_with_args, gsapi_init_with_args)        \
    GLANCE_TYPED(X, run_string_begin, gsapi_run_string_begin)    \
    GLANCE_TYPED(X, run_string_continue, gsapi_run_string_continue) \
    GLANCE_TYPED(X, run_string_end, gsapi_run_string_end)        \
    GLANCE_TYPED(X, exit, gsapi_exit)

/// The soname: Debian 12's Ghostscript 10.
GLANCE_LIBRARY(gs, "libgs.so.10", GS_FUNCTIONS, GLANCE_LIBRARY_NO_START)

int glance_gs_load(char *reason, size_t capacity) { return gs_ensure(reason, capacity); }

/// One interpreter at a time in a process.
static pthread_mutex_t interpreter = PTHREAD_MUTEX_INITIALIZER;

/// What the display device and the stdio callbacks collect.
typedef struct {
    uint64_t max_pixels;
    /// The display device's image while it draws (Ghostscript's memory), and its shape.
    const uint8_t *image;
    int width, height, raster;
    /// The pages shown so far, and how many of them go by before the one kept.
    int shown, skip;
    /// The page kept, copied out when it is done.
    glance_gs_page page;
    int over_limit, out_of_memory;
    /// The start of the interpreter's messages and of the program's own output (its first
    /// error says why it stopped).
    char messages[2048];
    size_t message_length;
} collected;

static int take_message(void *handle, const char *text, int length) {
    collected *state = handle;
    size_t room = sizeof state->messages - 1 - state->message_length;
    size_t count = length > 0 ? ((size_t)length < room ? (size_t)length : room) : 0;
    memcpy(state->messages + state->message_length, text, count);
    state->message_length += count;
    state->messages[state->message_length] = 0;
    return length;
}

static int give_no_input(void *handle, char *buffer, int length) {
    (void)handle;
    (void)buffer;
    (void)length;
    return 0;
}

// The display device's callbacks: the page's size before its memory is had (refused past the
// pixel limit), its memory, and the page when it is shown.
static int display_nothing(void *handle, void *device) {
    (void)handle;
    (void)device;
    return 0;
}

static int display_presize(void *handle, void *device, int width, int height, int raster, unsigned int format) {
    collected *state = handle;
    (void)device;
    (void)raster;
    (void)format;
    if (width < 0 || height < 0 || (uint64_t)width * (uint64_t)height > state->max_pixels) {
        state->over_limit = 1;
        return -1;
    }
    return 0;
}

static int display_size(void *handle, void *device, int width, int height, int raster, unsigned int format,
                        unsigned char *image) {
    collected *state = handle;
    (void)device;
    (void)format;
    state->image = image;
    state->width = width;
    state->height = height;
    state->raster = raster;
    return 0;
}

static int display_page(void *handle, void *device, int copies, int flush) {
    collected *state = handle;
    (void)device;
    (void)copies;
    (void)flush;
    if (state->shown++ < state->skip) return 0;
    if (state->page.pixels != NULL || state->image == NULL || state->width <= 0 || state->height <= 0) return 0;
    size_t row = (size_t)state->width * 3;
    state->page.pixels = malloc(row * (size_t)state->height);
    if (state->page.pixels == NULL) {
        state->out_of_memory = 1;
        return -1;
    }
    for (int y = 0; y < state->height; y++) {
        memcpy(state->page.pixels + row * (size_t)y, state->image + (size_t)state->raster * (size_t)y, row);
    }
    state->page.width = state->width;
    state->page.height = state->height;
    return 0;
}

static int display_update(void *handle, void *device, int x, int y, int w, int h) {
    (void)handle;
    (void)device;
    (void)x;
    (void)y;
    (void)w;
    (void)h;
    return 0;
}

static display_callback callbacks = {
    .size = sizeof(display_callback),
    .version_major = DISPLAY_VERSION_MAJOR,
    .version_minor = DISPLAY_VERSION_MINOR,
    .display_open = display_nothing,
    .display_preclose = display_nothing,
    .display_close = display_nothing,
    .display_presize = display_presize,
    .display_size = display_size,
    .display_sync = display_nothing,
    .display_page = display_page,
    .display_update = display_update,
};

/// 24-bit RGB, red first, the top row first.
static const unsigned int display_format =
    DISPLAY_COLORS_RGB | DISPLAY_ALPHA_NONE | DISPLAY_DEPTH_8 | DISPLAY_BIGENDIAN | DISPLAY_TOPFIRST;

/// Answers the display device's request for its callbacks.
static int callout(void *instance, void *handle, const char *device, int id, int size, void *data) {
    (void)instance;
    if (device == NULL || strcmp(device, "display") != 0 || id != DISPLAY_CALLOUT_GET_CALLBACK ||
        size < (int)sizeof(gs_display_get_callback_t)) {
        return -1;
    }
    gs_display_get_callback_t *answer = data;
    answer->callback = &callbacks;
    answer->caller_handle = handle;
    return 0;
}

/// Takes back what -dSAFER grants the temporary folder: Ghostscript permits reading, writing and
/// renaming anything under it (`$TMPDIR`, else `$TEMP`, else /tmp) for its own temporary files,
/// which would let a document read another's files there. Glance's use makes none (the page is
/// drawn in memory; an EPS is not spooled).
static void forbid_temporary_folder(void *instance) {
    const char *folders[] = {getenv("TMPDIR"), getenv("TEMP"), "/tmp"};
    for (size_t i = 0; i < sizeof folders / sizeof folders[0]; i++) {
        if (folders[i] == NULL || folders[i][0] == 0) continue;
        char pattern[4096];
        size_t length = strlen(folders[i]);
        int slash = folders[i][length - 1] == '/';
        if (snprintf(pattern, sizeof pattern, "%s%s*", folders[i], slash ? "" : "/") >= (int)sizeof pattern) continue;
        gs.remove_control_path(instance, GS_PERMIT_FILE_READING, pattern);
        gs.remove_control_path(instance, GS_PERMIT_FILE_WRITING, pattern);
        gs.remove_control_path(instance, GS_PERMIT_FILE_CONTROL, pattern);
    }
}

/// The first line of the interpreter's that names an error (`Error: /undefined in x`,
/// `Unrecoverable error: ...`) into `reason`; else `fallback` and the first line the program
/// printed, its blank lines and leading spaces skipped (a utility run without its arguments
/// prints its usage and quits); else `fallback` alone.
static void first_error(const collected *state, const char *fallback, char *reason, size_t capacity) {
    const char *found = state->message_length > 0 ? strstr(state->messages, "rror:") : NULL;
    if (found != NULL) {
        // Its line, from the line's start.
        const char *start = found;
        while (start > state->messages && start[-1] != '\n') start--;
        size_t length = strcspn(start, "\n");
        snprintf(reason, capacity, "%.*s", (int)(length < 300 ? length : 300), start);
        return;
    }
    const char *line = state->message_length > 0 ? state->messages + strspn(state->messages, " \t\r\n") : "";
    size_t length = strcspn(line, "\r\n");
    while (length > 0 && (line[length - 1] == ' ' || line[length - 1] == '\t')) length--;
    if (length == 0) {
        snprintf(reason, capacity, "%s", fallback);
    } else {
        snprintf(reason, capacity, "%s; it printed: %.*s", fallback, (int)(length < 200 ? length : 200), line);
    }
}

/// Feeds `size` bytes of `text` to the interpreter; returns its code.
static int feed(void *instance, const uint8_t *text, size_t size, int *exit_code) {
    int code = 0;
    for (size_t offset = 0; offset < size && (code == 0 || code == gs_error_NeedInput);) {
        unsigned int chunk = size - offset < 65535 ? (unsigned int)(size - offset) : 65535;
        code = gs.run_string_continue(instance, (const char *)text + offset, chunk, 0, exit_code);
        offset += chunk;
    }
    return code;
}

/// Runs the program once into `state`: with `page_range`, Ghostscript is asked for the request's
/// page alone (-dFirstPage, -dLastPage); without, every page is shown and the display device
/// keeps the one after `state->skip`. Returns 0 when Ghostscript did not start (`reason` says
/// why), else 1: what came of the run is in `state`.
static int run_once(const uint8_t *data, size_t size, const glance_gs_request *request, collected *state,
                    int page_range, char *reason, size_t capacity) {
    char resolution[64], first[32], last[32], width[64], height[64], format[64];
    snprintf(resolution, sizeof resolution, "-r%.4f", request->resolution);
    snprintf(first, sizeof first, "-dFirstPage=%d", request->page);
    snprintf(last, sizeof last, "-dLastPage=%d", request->page);
    snprintf(width, sizeof width, "-dDEVICEWIDTHPOINTS=%.3f", request->width);
    snprintf(height, sizeof height, "-dDEVICEHEIGHTPOINTS=%.3f", request->height);
    snprintf(format, sizeof format, "-dDisplayFormat=%u", display_format);
    // -dSAFER: no file but Ghostscript's fonts and resources may be opened, no device but the
    // display, no %pipe%; -dFIXEDMEDIA: the program cannot change the page's size.
    const char *args[] = {"glance", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-dNOPROMPT", "-sDEVICE=display",
                          format, "-dTextAlphaBits=4", "-dGraphicsAlphaBits=4", "-dFIXEDMEDIA", width, height,
                          resolution, first, last};
    int count = (int)(sizeof args / sizeof args[0]) - (page_range ? 0 : 2);
    pthread_mutex_lock(&interpreter);
    void *instance = NULL;
    int code = gs.new_instance(&instance, state);
    if (code < 0) {
        pthread_mutex_unlock(&interpreter);
        snprintf(reason, capacity, "Ghostscript did not start (%d)", code);
        return 0;
    }
    gs.set_stdio(instance, give_no_input, take_message, take_message);
    gs.register_callout(instance, callout, state);
    gs.set_arg_encoding(instance, GS_ARG_ENCODING_UTF8);
    code = gs.init_with_args(instance, count, (char **)args);
    int exit_code = 0;
    if (code == 0) forbid_temporary_folder(instance);
    if (code == 0) {
        gs.run_string_begin(instance, 0, &exit_code);
        // An EPS is drawn moved so that its box's corner is the page's, and shown (an EPS need
        // not show its page itself; one that does shows a second, blank page, not drawn).
        char origin[128];
        if (request->eps) {
            snprintf(origin, sizeof origin, "%.4f %.4f translate\n", -request->origin_x, -request->origin_y);
            code = feed(instance, (const uint8_t *)origin, strlen(origin), &exit_code);
        }
        if (code == 0 || code == gs_error_NeedInput) code = feed(instance, data, size, &exit_code);
        if (request->eps && (code == 0 || code == gs_error_NeedInput)) {
            code = feed(instance, (const uint8_t *)"\nshowpage\n", 10, &exit_code);
        }
        if (code == 0 || code == gs_error_NeedInput) code = gs.run_string_end(instance, 0, &exit_code);
    }
    gs.exit(instance);
    gs.delete_instance(instance);
    pthread_mutex_unlock(&interpreter);
    return 1;
}

int glance_gs_render(const uint8_t *data, size_t size, const glance_gs_request *request, glance_gs_page *page,
                     char *reason, size_t capacity, glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    memset(page, 0, sizeof *page);
    collected state = {0};
    state.max_pixels = request->max_pixels;
    if (!run_once(data, size, request, &state, 1, reason, capacity)) return 0;
    // A program that sets its page device itself on every page (Ghostscript's own ps2write does)
    // starts Ghostscript's count of pages again, and the range shows no page past the first:
    // run again, every page shown, the one asked for kept.
    if (state.page.pixels == NULL && request->page > 1 && !state.over_limit && !state.out_of_memory &&
        strstr(state.messages, "invalidfileaccess") == NULL) {
        state = (collected){.max_pixels = request->max_pixels, .skip = request->page - 1};
        if (!run_once(data, size, request, &state, 0, reason, capacity)) return 0;
    }
    if (state.over_limit) {
        snprintf(reason, capacity, "past the pixel limit");
        *failure = GLANCE_FAILURE_TOO_LARGE;
    } else if (state.out_of_memory) {
        snprintf(reason, capacity, "out of memory for the page");
        *failure = GLANCE_FAILURE_OUT_OF_MEMORY;
    } else if (state.page.pixels == NULL) {
        first_error(&state, "the program showed no page", reason, capacity);
        if (strstr(state.messages, "invalidfileaccess") != NULL) *failure = GLANCE_FAILURE_REFUSED;
    }
    if (state.page.pixels == NULL || state.over_limit || state.out_of_memory) {
        glance_gs_page_free(&state.page);
        return 0;
    }
    // A page shown before an error later in the program is kept: viewers show it too.
    *page = state.page;
    return 1;
}

void glance_gs_page_free(glance_gs_page *page) {
    free(page->pixels);
    page->pixels = NULL;
}
