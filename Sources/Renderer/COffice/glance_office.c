// See include/glance_office.h.
#define LOK_USE_UNSTABLE_API
#include "glance_office.h"

#include <LibreOfficeKit/LibreOfficeKit.h>
#include <LibreOfficeKit/LibreOfficeKitInit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct glance_office {
    LibreOfficeKit *kit;
};

struct glance_office_document {
    LibreOfficeKitDocument *kit;
};

glance_office *glance_office_start(const char *program_folder, const char *profile_url, char *reason,
                                   size_t capacity) {
    glance_office *office = calloc(1, sizeof *office);
    if (office == NULL) {
        snprintf(reason, capacity, "out of memory");
        return NULL;
    }
    // lok_init_2 loads libmergedlo.so from the folder (dlopen) and starts the office in this
    // process; NULL when the library is missing or would not start.
    office->kit = lok_init_2(program_folder, profile_url);
    if (office->kit == NULL) {
        snprintf(reason, capacity, "LibreOfficeKit did not start from %s", program_folder);
        free(office);
        return NULL;
    }
    return office;
}

glance_office_document *glance_office_load(glance_office *office, const char *path, const char *options,
                                           char *reason, size_t capacity) {
    reason[0] = 0;
    LibreOfficeKitDocument *loaded = office->kit->pClass->documentLoadWithOptions(office->kit, path, options);
    if (loaded == NULL) {
        char *error = office->kit->pClass->getError(office->kit);
        if (error != NULL) {
            snprintf(reason, capacity, "%s", error);
            office->kit->pClass->freeError(error);
        }
        return NULL;
    }
    glance_office_document *document = calloc(1, sizeof *document);
    if (document == NULL) {
        loaded->pClass->destroy(loaded);
        snprintf(reason, capacity, "out of memory");
        return NULL;
    }
    document->kit = loaded;
    return document;
}

int glance_office_document_kind(glance_office_document *document) {
    // LibreOfficeKitEnums.h's LibreOfficeKitDocumentType: TEXT, SPREADSHEET, PRESENTATION, DRAWING,
    // OTHER, in that order. (That header does not compile as C: its string helpers are C++.)
    int kind = document->kit->pClass->getDocumentType(document->kit);
    return kind >= 0 && kind <= 3 ? kind : 4;
}

int glance_office_part_count(glance_office_document *document) {
    return document->kit->pClass->getParts(document->kit);
}

void glance_office_set_part(glance_office_document *document, int part) {
    document->kit->pClass->setPart(document->kit, part);
}

void glance_office_document_size(glance_office_document *document, long *width, long *height) {
    document->kit->pClass->getDocumentSize(document->kit, width, height);
}

char *glance_office_page_rectangles(glance_office_document *document) {
    return document->kit->pClass->getPartPageRectangles(document->kit);
}

char *glance_office_part_name(glance_office_document *document, int part) {
    return document->kit->pClass->getPartName(document->kit, part);
}

char *glance_office_part_info(glance_office_document *document, int part) {
    return document->kit->pClass->getPartInfo(document->kit, part);
}

void glance_office_show_as_printed(glance_office_document *document) {
    LibreOfficeKitDocument *kit = document->kit;
    // The document's frame made the active one: a command is dispatched to the active frame, and
    // without it LibreOfficeKit drops the command. The frame of a document just loaded becomes
    // active only when LibreOffice's main loop gets to it, which no main loop here does in time
    // (the command was kept one time in two); a second view, made and left, activates the
    // document's own at once, in this thread.
    int own = kit->pClass->getView(kit);
    int other = kit->pClass->createView(kit);
    kit->pClass->setView(kit, own);
    if (other >= 0 && other != own) kit->pClass->destroyView(kit, other);
    kit->pClass->setView(kit, own);
    // SynchronMode: dispatched at once, in this thread (no main loop runs to take a posted one).
    kit->pClass->postUnoCommand(kit, ".uno:ShowTrackedChanges",
                                "{\"ShowTrackedChanges\":{\"type\":\"boolean\",\"value\":false},"
                                "\"SynchronMode\":{\"type\":\"boolean\",\"value\":true}}",
                                0);
    kit->pClass->postUnoCommand(kit, ".uno:ShowAnnotations",
                                "{\"ShowAnnotations\":{\"type\":\"boolean\",\"value\":false},"
                                "\"SynchronMode\":{\"type\":\"boolean\",\"value\":true}}",
                                0);
}

void glance_office_free_text(glance_office_document *document, char *text) {
    (void)document;
    // LibreOfficeKit's strings come from malloc in the same process.
    free(text);
}

void glance_office_paint(glance_office_document *document, uint8_t *pixels, int pixel_width, int pixel_height,
                         long x, long y, long width, long height) {
    document->kit->pClass->paintTile(document->kit, pixels, pixel_width, pixel_height, (int)x, (int)y, (int)width,
                                     (int)height);
}

void glance_office_close(glance_office_document *document) {
    if (document == NULL) return;
    document->kit->pClass->destroy(document->kit);
    free(document);
}
