// See include/glance_djvu.h.
#define _GNU_SOURCE
#include "glance_djvu.h"

#include <libdjvu/ddjvuapi.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "glance_library_loader.h"

/// DjVuLibre's functions, typed by its own header, found once and read-only after.
#define DJVU_FUNCTIONS(X)                                                 \
    GLANCE_TYPED(X, context_create, ddjvu_context_create)                 \
    GLANCE_TYPED(X, context_release, ddjvu_context_release)               \
    GLANCE_TYPED(X, message_wait, ddjvu_message_wait)                     \
    GLANCE_TYPED(X, message_peek, ddjvu_message_peek)                     \
    GLANCE_TYPED(X, message_pop, ddjvu_message_pop)                       \
    GLANCE_TYPED(X, document_create, ddjvu_document_create)               \
    GLANCE_TYPED(X, job_status, ddjvu_job_status)                         \
    GLANCE_TYPED(X, job_release, ddjvu_job_release)                       \
    GLANCE_TYPED(X, document_job, ddjvu_document_job)                     \
    GLANCE_TYPED(X, document_type, ddjvu_document_get_type)               \
    GLANCE_TYPED(X, page_count, ddjvu_document_get_pagenum)               \
    GLANCE_TYPED(X, page_info, ddjvu_document_get_pageinfo_imp)           \
    GLANCE_TYPED(X, stream_write, ddjvu_stream_write)                     \
    GLANCE_TYPED(X, stream_close, ddjvu_stream_close)                     \
    GLANCE_TYPED(X, page_create, ddjvu_page_create_by_pageno)             \
    GLANCE_TYPED(X, page_job, ddjvu_page_job)                             \
    GLANCE_TYPED(X, page_initial_rotation, ddjvu_page_get_initial_rotation) \
    GLANCE_TYPED(X, page_set_rotation, ddjvu_page_set_rotation)           \
    GLANCE_TYPED(X, page_render, ddjvu_page_render)                       \
    GLANCE_TYPED(X, format_create, ddjvu_format_create)                   \
    GLANCE_TYPED(X, format_row_order, ddjvu_format_set_row_order)         \
    GLANCE_TYPED(X, format_release, ddjvu_format_release)

/// The soname: DjVuLibre's ABI has been 21 since 3.5.21.
GLANCE_LIBRARY(djvu, "libdjvulibre.so.21", DJVU_FUNCTIONS, GLANCE_LIBRARY_NO_START)

int glance_djvu_load(char *reason, size_t capacity) { return djvu_ensure(reason, capacity); }

/// One document open at a time in a process: DjVuLibre's decoding threads of two documents open
/// at once (two contexts, in tests that render in parallel in one process) crashed it in about
/// one run of eight of the DjVu tests. A renderer process renders one document at a time anyway.
/// A semaphore rather than a mutex: the document is closed by whichever thread its owner is on.
static sem_t one_document;
static pthread_once_t one_document_made = PTHREAD_ONCE_INIT;
static void make_one_document(void) { sem_init(&one_document, 0, 1); }

struct glance_djvu {
    /// Whether this document holds `one_document`.
    int holds_turn;
    ddjvu_context_t *context;
    ddjvu_document_t *document;
    /// DjVuLibre's first error message, and the first other file asked for.
    char error[256];
    char asked[256];
};

/// Handles the messages waiting: an error is kept; a request for another file than the
/// document itself is refused at once (its stream closed, stopped).
static void handle_messages(glance_djvu *file) {
    const ddjvu_message_t *message;
    while ((message = djvu.message_peek(file->context)) != NULL) {
        switch (message->m_any.tag) {
        case DDJVU_ERROR:
            if (file->error[0] == 0 && message->m_error.message != NULL) {
                snprintf(file->error, sizeof file->error, "%s", message->m_error.message);
            }
            break;
        case DDJVU_NEWSTREAM:
            if (message->m_newstream.streamid != 0) {
                if (file->asked[0] == 0) {
                    const char *name = message->m_newstream.name;
                    snprintf(file->asked, sizeof file->asked, "%s", name != NULL ? name : "another file");
                }
                djvu.stream_close(file->document, message->m_newstream.streamid, 1);
            }
            break;
        default:
            break;
        }
        djvu.message_pop(file->context);
    }
}

/// Gives a failed `status` up to 0.2 s for the error that says why: DjVuLibre may set a job's
/// status (or a page's) before its decoding thread has posted that error (a file cut short:
/// "unexpected end of file"), so that the reason does not depend on which thread ran first.
static ddjvu_status_t await_error(glance_djvu *file, ddjvu_status_t status) {
    for (int tries = 0; status >= DDJVU_JOB_FAILED && file->error[0] == 0 && tries < 100; tries++) {
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
        handle_messages(file);
    }
    return status;
}

/// Waits for `job` to end, handling the messages meanwhile; returns its status (a failure's
/// reason awaited, see await_error).
static ddjvu_status_t wait_for(glance_djvu *file, ddjvu_job_t *job) {
    handle_messages(file);
    while (djvu.job_status(job) < DDJVU_JOB_OK) {
        djvu.message_wait(file->context);
        handle_messages(file);
    }
    return await_error(file, djvu.job_status(job));
}

/// DjVuLibre's error (or `fallback`) into `reason`, and what failed: a file that ends early
/// says so in its words.
static void fail(const glance_djvu *file, const char *fallback, char *reason, size_t capacity,
                 glance_failure *failure) {
    const char *text = file != NULL && file->error[0] != 0 ? file->error : fallback;
    snprintf(reason, capacity, "%s", text);
    *failure = strcasestr(text, "end of file") != NULL || strstr(text, "EOF") != NULL ? GLANCE_FAILURE_TRUNCATED
                                                                                      : GLANCE_FAILURE_CORRUPT;
}

glance_djvu *glance_djvu_open(const uint8_t *data, size_t size, int *pages, char *reason, size_t capacity,
                              glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    glance_djvu *file = calloc(1, sizeof *file);
    if (file != NULL) {
        pthread_once(&one_document_made, make_one_document);
        while (sem_wait(&one_document) != 0) {
        }
        file->holds_turn = 1;
    }
    if (file == NULL || (file->context = djvu.context_create("glance")) == NULL ||
        (file->document = djvu.document_create(file->context, NULL, 0)) == NULL) {
        snprintf(reason, capacity, "out of memory for the document");
        *failure = GLANCE_FAILURE_OUT_OF_MEMORY;
        glance_djvu_close(file);
        return NULL;
    }
    // Stream 0 is the document itself, given whole.
    djvu.stream_write(file->document, 0, (const char *)data, size);
    djvu.stream_close(file->document, 0, 0);
    ddjvu_status_t status = wait_for(file, djvu.document_job(file->document));
    if (djvu.document_type(file->document) == DDJVU_DOCTYPE_INDIRECT) {
        snprintf(reason, capacity, "an indirect DjVu document: its pages are files beside it%s%s",
                 file->asked[0] ? ", such as " : "", file->asked);
        *failure = GLANCE_FAILURE_REFUSED;
        glance_djvu_close(file);
        return NULL;
    }
    *pages = status == DDJVU_JOB_OK ? djvu.page_count(file->document) : 0;
    if (status != DDJVU_JOB_OK || *pages <= 0) {
        fail(file, "DjVuLibre could not read the document", reason, capacity, failure);
        glance_djvu_close(file);
        return NULL;
    }
    return file;
}

int glance_djvu_page_info(glance_djvu *file, int index, int *width, int *height, int *dpi, char *reason,
                          size_t capacity, glance_failure *failure) {
    ddjvu_pageinfo_t info;
    ddjvu_status_t status;
    while ((status = djvu.page_info(file->document, index, &info, sizeof info)) < DDJVU_JOB_OK) {
        djvu.message_wait(file->context);
        handle_messages(file);
    }
    if (status != DDJVU_JOB_OK || info.width <= 0 || info.height <= 0) {
        // Found flaky in the asset tests: a cut file's page failed before its "end of file" came.
        await_error(file, status);
        fail(file, "the page's header cannot be read", reason, capacity, failure);
        return 0;
    }
    // DjVuLibre gives the size as shown: its orientation flags applied already.
    *width = info.width;
    *height = info.height;
    *dpi = info.dpi > 0 ? info.dpi : 300;
    return 1;
}

int glance_djvu_render(glance_djvu *file, int index, int width, int height, uint8_t *out, char *reason,
                       size_t capacity, glance_failure *failure) {
    *failure = GLANCE_FAILURE_CORRUPT;
    ddjvu_page_t *page = djvu.page_create(file->document, index);
    if (page == NULL) {
        fail(file, "DjVuLibre could not open the page", reason, capacity, failure);
        return 0;
    }
    ddjvu_job_t *job = djvu.page_job(page);
    if (wait_for(file, job) != DDJVU_JOB_OK) {
        fail(file, "DjVuLibre could not decode the page", reason, capacity, failure);
        if (file->asked[0] != 0) *failure = GLANCE_FAILURE_REFUSED;
        djvu.job_release(job);
        return 0;
    }
    // Turned as its orientation flags say (DjVuLibre's default, made sure of).
    djvu.page_set_rotation(page, djvu.page_initial_rotation(page));
    ddjvu_format_t *format = djvu.format_create(DDJVU_FORMAT_RGB24, 0, NULL);
    int drawn = 0;
    if (format != NULL) {
        djvu.format_row_order(format, 1);
        ddjvu_rect_t whole = {0, 0, (unsigned int)width, (unsigned int)height};
        drawn = djvu.page_render(page, DDJVU_RENDER_COLOR, &whole, &whole, format, (unsigned long)width * 3,
                                 (char *)out);
        djvu.format_release(format);
    }
    // A page with nothing to draw (no layer decoded) is white.
    if (!drawn) memset(out, 0xFF, (size_t)width * (size_t)height * 3);
    djvu.job_release(job);
    return 1;
}

void glance_djvu_close(glance_djvu *file) {
    if (file == NULL) return;
    if (file->document != NULL) djvu.job_release(djvu.document_job(file->document));
    if (file->context != NULL) djvu.context_release(file->context);
    if (file->holds_turn) sem_post(&one_document);
    free(file);
}
