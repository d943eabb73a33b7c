// The resampling kernel: a streaming downscaler.
//
// Rows of the source go in one after another, in order; the thumbnail comes out. Memory is a
// few rows wide, never the source's height, so a PNG streamed row by row costs the same whether
// it is 1,000 or 40,000 rows tall. Written in C because this is the hot loop of every raster
// thumbnail, and the compiler vectorises its float4 arithmetic here reliably. Where the processor
// has AVX2 and FMA (asked at run time), the two Lanczos passes use them: two pixels a multiply-add
// across, eight floats down; the results agree with the portable passes within one level.
//
// Two stages (see docs/how-a-thumbnail-is-made.md):
//   1. block shrink: an integer box average by kx x ky, only while at least a factor of two is
//      left for stage 2 (box filters alias; they are only the cheap first part of a big shrink);
//   2. separable Lanczos-3 to the exact target size: horizontally on each row as it arrives,
//      vertically over a ring buffer of filtered rows.
// Alpha is premultiplied on the way in and divided out on the way out, so transparent pixels'
// colours never bleed into the edges (no dark fringes).
#ifndef GLANCE_SCALER_H
#define GLANCE_SCALER_H

#include <stddef.h>
#include <stdint.h>

typedef struct glance_scaler glance_scaler;

/// A scaler from `source_width` x `source_height` to `target_width` x `target_height`, for
/// 8-bit pixels of `channels` (3 = RGB, 4 = RGBA with straight alpha). NULL if out of memory
/// or if a size is not positive. The target may not be larger than the source.
glance_scaler *glance_scaler_create(int source_width, int source_height, int channels,
                                    int target_width, int target_height);

/// Where the target pixels go: `target_width * target_height * channels` bytes owned by the
/// caller (so that the thumbnail is made in place, never copied). Set before the first row.
void glance_scaler_set_target(glance_scaler *scaler, uint8_t *target);

/// Receives target row `y` (`target_width * channels` bytes, valid until the call returns and
/// the sink's to change in place), in order from 0.
typedef void (*glance_scaler_row_sink)(void *context, uint8_t *row, int y);

/// Instead of a target buffer: hand each target row to `sink` as soon as it is made, so that
/// the thumbnail is encoded as it is made and never exists whole. 0 if out of memory.
int glance_scaler_set_row_sink(glance_scaler *scaler, glance_scaler_row_sink sink, void *context);

/// Takes the next `count` source rows (`stride` bytes apart).
void glance_scaler_push_rows(glance_scaler *scaler, const uint8_t *rows, size_t stride, int count);

/// Flushes what the source left unfinished (a truncated image ends early: its last row is
/// repeated to the full height), completing the target.
void glance_scaler_finish(glance_scaler *scaler);

/// Whether the Lanczos passes use AVX2 and FMA, which they do where the processor has them
/// (decided at run time). `enabled` 0 turns them off, for the portable passes (tests compare the
/// two; they agree within one level); 1 turns them on where available. Returns the setting now.
int glance_scaler_use_avx2(glance_scaler *scaler, int enabled);

void glance_scaler_free(glance_scaler *scaler);

/// Halves `width` x `height` pixels of `channels` (1, 3, or 4 = RGBA with straight alpha,
/// averaged weighted by alpha), rows `stride` bytes apart, into `target`: (width + 1) / 2 x
/// (height + 1) / 2 pixels, rows packed, each the rounded mean of a 2x2 block (an odd last row
/// or column is averaged with itself). See glance_halve.c for when it is used instead of the
/// scaler.
void glance_halve(const uint8_t *source, int width, int height, size_t stride, int channels, uint8_t *target);

/// glance_halve of cairo's RGB24 pixels (a native-endian 32-bit word a pixel, 0x00RRGGBB, rows
/// `stride` bytes apart) into RGB: the same bytes as glance_halve of the pixels copied to RGB
/// first, without the copy (a page drawn by cairo, halved for the store's smaller sizes).
void glance_halve_words(const uint8_t *words, int width, int height, size_t stride, uint8_t *target);

#endif
