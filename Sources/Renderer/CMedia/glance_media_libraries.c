// Loading FFmpeg's four libraries on first use. See include/glance_media.h.
#define _GNU_SOURCE
#include "glance_media_private.h"

#define SONAME(name, major) "lib" name ".so." AV_STRINGIFY(major)

static int quiet_avutil(char *failure, size_t capacity);

GLANCE_LIBRARY_DEFINE(avutil, SONAME("avutil", LIBAVUTIL_VERSION_MAJOR), AVUTIL_FUNCTIONS, quiet_avutil)
GLANCE_LIBRARY_DEFINE(avcodec, SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR), AVCODEC_FUNCTIONS, GLANCE_LIBRARY_NO_START)
GLANCE_LIBRARY_DEFINE(avformat, SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR), AVFORMAT_FUNCTIONS, GLANCE_LIBRARY_NO_START)
GLANCE_LIBRARY_DEFINE(swscale, SONAME("swscale", LIBSWSCALE_VERSION_MAJOR), SWSCALE_FUNCTIONS, GLANCE_LIBRARY_NO_START)

/// FFmpeg logs to standard error by default: a renderer's messages are its replies, so nothing.
static int quiet_avutil(char *failure, size_t capacity) {
    (void)failure;
    (void)capacity;
    avutil.log_set_level(AV_LOG_QUIET);
    return 1;
}

int glance_media_load(char *reason, size_t capacity) {
    return avutil_ensure(reason, capacity) && avcodec_ensure(reason, capacity) &&
           avformat_ensure(reason, capacity) && swscale_ensure(reason, capacity);
}

void glance_media_copy_av_error(int code, char *reason, size_t capacity) {
    char text[128];
    if (avutil.strerror(code, text, sizeof text) < 0) snprintf(text, sizeof text, "error %d", code);
    snprintf(reason, capacity, "%s", text);
}

const char *glance_media_codec_name(const AVCodecParameters *parameters) {
    const char *name = avcodec.codec_name(parameters->codec_id);
    return name != NULL ? name : "unknown";
}
