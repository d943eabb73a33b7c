// JPEG XL through libjxl (Debian's libjxl-dev), loaded the first time such a file comes: a batch
// without one maps none of it (libjxl brings libhwy and libbrotli).
#ifndef GLANCE_JXL_H
#define GLANCE_JXL_H

#include "glance_failure.h"

#include <stddef.h>
#include <stdint.h>

/// Loads libjxl (`libjxl.so.0.7`) once per process; later calls return the first call's result.
/// Returns 1 when ready, else 0 with the reason in `reason`.
int glance_jxl_load(char *reason, size_t capacity);

/// An open JPEG XL file (opaque): libjxl's decoder over the file's bytes and, once decoded, the
/// first frame's pixels.
typedef struct glance_jxl glance_jxl;

/// The transfer of a high-dynamic-range image, which is tone-mapped to sRGB.
typedef enum { GLANCE_JXL_SDR = 0, GLANCE_JXL_PQ = 1, GLANCE_JXL_HLG = 2 } glance_jxl_transfer;

/// What the codestream's header says, before a pixel is decoded.
typedef struct {
    /// The stored size (before the orientation is applied).
    int width, height;
    /// The Exif-style orientation (1 to 8) the picture is shown in; not applied by the decoder.
    int orientation;
    /// Whether it has an alpha channel (premultiplied in the file or not: the pixels given are
    /// not premultiplied).
    int has_alpha, alpha_premultiplied;
    /// Whether its colour channel is gray.
    int is_gray;
    /// Whether it is an animation (only the first frame is decoded).
    int is_animation;
    /// The bits a sample has in the file.
    int bits_per_sample;
    /// Whether its pixels are coded in XYB (a lossy file: libjxl converts to the colour asked).
    int is_xyb;
    /// Whether it is a JPEG recompressed losslessly (its container holds a `jbrd` box to rebuild
    /// the JPEG): a lossy picture whose pixels are not coded in XYB.
    int is_recompressed_jpeg;
    /// The original colour's transfer, for HDR pictures.
    glance_jxl_transfer transfer;
} glance_jxl_info;

/// Opens the JPEG XL (bare codestream or container) of `size` bytes at `data` (copied into a
/// buffer the handle owns: libjxl reads it across calls) and reads its header and colour
/// description. Returns NULL with the reason in `reason` and what failed in
/// `*failure`. Only after glance_jxl_load.
glance_jxl *glance_jxl_open(const uint8_t *data, size_t size, glance_jxl_info *info, char *reason,
                            size_t capacity, glance_failure *failure);

/// The colour profile the decoded pixels are in (libjxl's ICC description of them): returns its
/// length (copied into `out` when it fits `capacity`), or 0 when libjxl gives none.
size_t glance_jxl_icc_profile(glance_jxl *jxl, uint8_t *out, size_t capacity);

/// Decodes the first frame (an animation's first displayed frame, its layers merged) to 8-bit RGB,
/// or RGBA when the picture has alpha: a gray picture's samples are given as RGB. Returns 1 with
/// the channels (3 or 4) in `*channels`; else 0 with libjxl's reason and what failed.
int glance_jxl_decode(glance_jxl *jxl, int *channels, char *reason, size_t capacity, glance_failure *failure);

/// The decoded rows, `width * channels` bytes each, packed. Only after glance_jxl_decode returned 1.
const uint8_t *glance_jxl_pixels(const glance_jxl *jxl);

/// Frees the decoder, the file's bytes and the pixels.
void glance_jxl_close(glance_jxl *jxl);

#endif
