// LibreOffice's media backend kept from starting (see the comment on gst_init_check below).
#include <stddef.h>

// GStreamer's GError, as far as this file needs it: never made here.
typedef struct glance_unused_gerror glance_unused_gerror;

/// Interposes GStreamer's initialisation in the office renderer, whose executable exports this
/// symbol (Package.swift: --export-dynamic-symbol), so that it is found before libgstreamer's
/// own when LibreOffice's media backend (libavmediagst.so) is loaded.
///
/// It answers that GStreamer could not start: LibreOffice then makes no player for a clip in a
/// presentation, so nothing is played, probed or opened. Measured on LibreOffice 7.4 with
/// GStreamer's plugins installed: a slide with an embedded clip hung its renderer (the backend
/// waits 10 s for the clip's size at every frame it grabs, for ever when no plugin can tell it);
/// a linked clip and an embedded HLS playlist's segments were opened outside the document, and
/// a linked clip crashed LibreOffice. With no player, the slide is drawn with the media object's
/// placeholder. Emptying GStreamer's plugin path instead left the backend waiting.
int gst_init_check(int *argc, char ***argv, glance_unused_gerror **error) {
    (void)argc;
    (void)argv;
    if (error != NULL) *error = NULL;
    return 0;
}
