// See include/glance_gif.h.
#include "glance_gif.h"

#include <ctype.h>
#include <gif_lib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// How the walk to the first frame ended.
typedef enum {
    GLANCE_GIF_OK = 0,
    /// The canvas would exceed the pixel limit (its size is in the frame).
    GLANCE_GIF_TOO_LARGE = 1,
    /// The data ended before the first frame did.
    GLANCE_GIF_TRUNCATED = 2,
    /// giflib refused the data (its error code is in the frame).
    GLANCE_GIF_CORRUPT = 3,
    /// The file ended without an image.
    GLANCE_GIF_NO_IMAGE = 4,
    /// The canvas could not be allocated.
    GLANCE_GIF_NO_MEMORY = 5,
} glance_gif_status;

/// The bytes giflib reads from: a memory buffer and how far it has been read.
typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
} memory_source;

static int read_memory(GifFileType *gif, GifByteType *out, int wanted) {
    memory_source *source = gif->UserData;
    size_t left = source->size - source->offset;
    size_t count = wanted < 0 ? 0 : (size_t)wanted;
    if (count > left) count = left;
    memcpy(out, source->data + source->offset, count);
    source->offset += count;
    return (int)count;
}

/// The status for giflib's error `code` (a read that came up short is the data ending).
static glance_gif_status failure(int code, glance_gif_frame *frame) {
    frame->error = code;
    return code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_EOF_TOO_SOON ? GLANCE_GIF_TRUNCATED : GLANCE_GIF_CORRUPT;
}

/// Skips the sub-blocks of the extension just begun (`block` is its first).
static int skip_extension(GifFileType *gif, GifByteType *block) {
    while (block != NULL) {
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return GIF_ERROR;
    }
    return GIF_OK;
}

/// Paints the frame `gif` has just described, read row by row, onto `frame`'s canvas.
static glance_gif_status paint_frame(GifFileType *gif, int transparent, glance_gif_frame *frame) {
    const GifImageDesc *desc = &gif->Image;
    const ColorMapObject *map = desc->ColorMap != NULL ? desc->ColorMap : gif->SColorMap;
    if (map == NULL || map->Colors == NULL) return failure(D_GIF_ERR_NO_COLOR_MAP, frame);
    GifByteType *row = malloc((size_t)desc->Width);
    if (row == NULL) return GLANCE_GIF_NO_MEMORY;
    // An interlaced frame's rows come in four passes: every 8th from 0, every 8th from 4, every
    // 4th from 2, every 2nd from 1.
    static const int pass_start[4] = {0, 4, 2, 1};
    static const int pass_step[4] = {8, 8, 4, 2};
    int passes = desc->Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
        int start = desc->Interlace ? pass_start[pass] : 0;
        int step = desc->Interlace ? pass_step[pass] : 1;
        for (int y = start; y < desc->Height; y += step) {
            if (DGifGetLine(gif, row, desc->Width) == GIF_ERROR) {
                free(row);
                return failure(gif->Error, frame);
            }
            int canvas_y = desc->Top + y;
            uint8_t *out = frame->pixels + ((size_t)canvas_y * (size_t)frame->width + (size_t)desc->Left) * 4;
            for (int x = 0; x < desc->Width; x++, out += 4) {
                int index = row[x];
                if (index == transparent || index >= map->ColorCount) continue;  // stays transparent
                out[0] = map->Colors[index].Red;
                out[1] = map->Colors[index].Green;
                out[2] = map->Colors[index].Blue;
                out[3] = 255;
            }
        }
    }
    free(row);
    frame->interlaced = desc->Interlace ? 1 : 0;
    return GLANCE_GIF_OK;
}

/// Walks to the first frame and paints it.
static glance_gif_status decode_first_frame(const uint8_t *data, size_t size, long max_pixels,
                                            glance_gif_frame *frame) {
    memset(frame, 0, sizeof *frame);
    memory_source source = {data, size, 0};
    int error = 0;
    GifFileType *gif = DGifOpen(&source, read_memory, &error);
    if (gif == NULL) return failure(error, frame);
    int transparent = -1;
    glance_gif_status status = GLANCE_GIF_NO_IMAGE;
    int painted = 0;
    for (;;) {
        GifRecordType record;
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) {
            if (!painted) status = failure(gif->Error, frame);
            break;
        }
        if (record == TERMINATE_RECORD_TYPE) break;
        if (record == EXTENSION_RECORD_TYPE) {
            int code = 0;
            GifByteType *block = NULL;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) {
                if (!painted) status = failure(gif->Error, frame);
                break;
            }
            // A graphic control extension before the first image: its transparent colour.
            if (!painted && code == GRAPHICS_EXT_FUNC_CODE && block != NULL && block[0] >= 4) {
                transparent = (block[1] & 0x01) ? block[4] : -1;
            }
            if (skip_extension(gif, block) == GIF_ERROR) {
                if (!painted) status = failure(gif->Error, frame);
                break;
            }
            continue;
        }
        if (record != IMAGE_DESC_RECORD_TYPE) continue;
        if (painted) {  // A second image: an animation; it is not decoded.
            frame->is_animation = 1;
            break;
        }
        if (DGifGetImageDesc(gif) == GIF_ERROR) {
            status = failure(gif->Error, frame);
            break;
        }
        const GifImageDesc *desc = &gif->Image;
        if (desc->Width <= 0 || desc->Height <= 0 || desc->Left < 0 || desc->Top < 0) {
            status = failure(D_GIF_ERR_NO_IMAG_DSCR, frame);
            break;
        }
        // The logical screen, grown to the first frame's far edges when it reaches past them.
        long right = (long)desc->Left + desc->Width, bottom = (long)desc->Top + desc->Height;
        long width = gif->SWidth > right ? gif->SWidth : right;
        long height = gif->SHeight > bottom ? gif->SHeight : bottom;
        frame->width = (int)(width > 0x7fffffff ? 0x7fffffff : width);
        frame->height = (int)(height > 0x7fffffff ? 0x7fffffff : height);
        if (width * height > max_pixels) {
            status = GLANCE_GIF_TOO_LARGE;
            break;
        }
        frame->pixels = calloc((size_t)width * (size_t)height, 4);
        if (frame->pixels == NULL) {
            status = GLANCE_GIF_NO_MEMORY;
            break;
        }
        status = paint_frame(gif, transparent, frame);
        if (status != GLANCE_GIF_OK) break;
        painted = 1;
        frame->has_transparency =
            transparent >= 0 || desc->Left > 0 || desc->Top > 0 || right < width || bottom < height;
        // giflib has read past the frame's last code block; the loop reads on to the next
        // record, to say whether this is an animation.
    }
    DGifCloseFile(gif, &error);
    if (status != GLANCE_GIF_OK) {
        free(frame->pixels);
        frame->pixels = NULL;
    }
    return status;
}

void glance_gif_frame_free(glance_gif_frame *frame) {
    free(frame->pixels);
    frame->pixels = NULL;
}

static const char *error_text(int error) {
    const char *text = GifErrorString(error);
    return text != NULL ? text : "unknown giflib error";
}

int glance_gif_decode_first_frame(const uint8_t *data, size_t size, long max_pixels, glance_gif_frame *frame,
                                  glance_failure *failure, char *reason, size_t capacity) {
    glance_gif_status status = decode_first_frame(data, size, max_pixels, frame);
    if (status == GLANCE_GIF_OK && frame->pixels != NULL) return 1;
    const char *words = "no pixels";
    *failure = GLANCE_FAILURE_CORRUPT;
    switch (status) {
    case GLANCE_GIF_TOO_LARGE:
        *failure = GLANCE_FAILURE_TOO_LARGE;
        snprintf(reason, capacity, "%dx%d", frame->width, frame->height);
        return 0;
    case GLANCE_GIF_NO_MEMORY:
        *failure = GLANCE_FAILURE_OUT_OF_MEMORY;
        snprintf(reason, capacity, "no memory for a %dx%d GIF canvas", frame->width, frame->height);
        return 0;
    case GLANCE_GIF_TRUNCATED: *failure = GLANCE_FAILURE_TRUNCATED; break;
    case GLANCE_GIF_NO_IMAGE: words = "the file holds no image"; break;
    case GLANCE_GIF_CORRUPT: words = error_text(frame->error); break;
    default: break;
    }
    snprintf(reason, capacity, "%s", words);
    // giflib's words start with a capital: a reason is part of a sentence.
    if (capacity > 0) {
        for (char *c = reason; *c != '\0'; c++) *c = (char)tolower((unsigned char)*c);
    }
    return 0;
}
