// C shim for Little CMS 2: ICC profiles read from documents, and transforms of 8-bit pixels to sRGB.
//
// Every call reports failure through a message buffer rather than lcms's process-wide error
// handler: each profile and transform lives in an lcms context of its own, whose error handler
// writes into that object, so concurrent renders never share state.
#ifndef GLANCE_COLOUR_H
#define GLANCE_COLOUR_H

#include <stddef.h>
#include <stdint.h>

/// The colour space a profile describes (its data colour space).
typedef enum {
    GLANCE_COLOUR_SPACE_OTHER = 0,  ///< Lab, XYZ, multi-ink and the like: not used by Glance
    GLANCE_COLOUR_SPACE_RGB = 1,
    GLANCE_COLOUR_SPACE_GRAY = 2,
    GLANCE_COLOUR_SPACE_CMYK = 3,
} glance_colour_space;

/// What Glance needs to know of a profile before it builds a transform.
typedef struct {
    int space;                      ///< glance_colour_space
    int is_display_class;           ///< input, display or output class (not a link or an abstract)
    int is_srgb;                    ///< an RGB matrix/curves profile equal to sRGB: nothing to convert
    char description[128];          ///< the profile's own name ("Adobe RGB (1998)"), ASCII, may be empty
} glance_colour_profile_info;

/// Reads the ICC profile in `icc` (`length` bytes). Returns 0 and fills `info`, or -1 and a
/// message (a truncated or malformed profile).
int glance_colour_inspect(const uint8_t *icc, size_t length, glance_colour_profile_info *info,
                          char *message, size_t message_size);

/// How the pixels a transform reads are laid out; the transform writes 8-bit sRGB.
typedef enum {
    GLANCE_PIXELS_RGB = 0,              ///< RGB in, RGB out (in place allowed)
    GLANCE_PIXELS_RGBA = 1,             ///< RGBA in, RGBA out, alpha copied (in place allowed)
    GLANCE_PIXELS_GRAY_IN_RGB = 2,      ///< gray stored as R=G=B; the first byte is read
    GLANCE_PIXELS_GRAY_IN_RGBA = 3,     ///< the same with alpha, left as it is (in place only)
    GLANCE_PIXELS_CMYK = 4,             ///< CMYK ink amounts in, RGB out
    GLANCE_PIXELS_CMYK_INVERTED = 5,    ///< Adobe's inverted CMYK (0 = full ink) in, RGB out
} glance_colour_pixels;

/// Fills `table` from 16-bit linear light (0 to 65535 for 0 to 1) to 8-bit sRGB codes (its
/// curve), for floating-point and HDR pictures.
void glance_colour_linear_to_srgb_table(uint8_t table[65536]);

/// A linear-light sample clipped to 0 to 1 (not-a-number as 0) in 16 bits: the index of
/// glance_colour_linear_to_srgb_table's table.
static inline int glance_colour_linear_index(float value) {
    return value > 0 ? (value < 1 ? (int)(value * 65535.0f + 0.5f) : 65535) : 0;
}

/// The matrix that takes linear light on the primaries of the RGB profile in `icc` to linear
/// light on sRGB's (the identity for a gray profile): its colorants only, not its curves. For
/// floating-point pictures, whose samples are linear light whatever curve their profile names
/// (Photoshop's 32-bit mode embeds its working space's profile, curve and all, with linear
/// samples). Returns 0, or -1 and a message when the profile has no primaries (a table-based
/// profile, or not RGB or gray) or cannot be read.
int glance_colour_linear_matrix(const uint8_t *icc, size_t length, float matrix[3][3], char *message,
                                size_t message_size);

/// The matrix from linear light on `chromaticities` (white, red, green, blue x, y) to linear light
/// on sRGB's primaries: an OpenEXR `chromaticities` attribute, a Radiance `PRIMARIES=` line.
/// Returns 1 with `matrix` filled, 0 when they are sRGB's own (within 0.001: no matrix needed),
/// or -1 when they describe no colour space.
int glance_colour_primaries_matrix(const double chromaticities[8], float matrix[3][3]);

typedef struct glance_colour_transform glance_colour_transform;

/// A transform from the profile in `icc` to sRGB for pixels laid out as `pixels`: perceptual
/// intent with black-point compensation. RGB matrix/curves profiles (most cameras' and
/// displays') get a direct path of their own, curves and one matrix, unless `exact` asks for
/// lcms's own transform (to compare the two). Returns NULL and a message when the profile cannot
/// be used (malformed, or not of the pixels' colour space).
glance_colour_transform *glance_colour_transform_create(const uint8_t *icc, size_t length, int pixels, int exact,
                                                        char *message, size_t message_size);

/// Transforms `rows` rows of `width` pixels from `in` to `out` (`in == out` is allowed for the
/// in-place layouts above), each row `in_stride` and `out_stride` bytes apart.
void glance_colour_transform_rows(glance_colour_transform *transform, const uint8_t *in, size_t in_stride,
                                  uint8_t *out, size_t out_stride, int width, int rows);

void glance_colour_transform_free(glance_colour_transform *transform);

/// Builds the ICC profile that a PNG's gAMA (file gamma, e.g. 0.45455) and cHRM chunks describe:
/// `chromaticities` is white x, y, then red, green, blue x, y (8 values), or NULL for the sRGB
/// primaries with a D65 white. `gray` makes a gray profile. On success `*out` is a malloc'd
/// profile of `*out_length` bytes that the caller frees with free(); otherwise -1 and a message.
int glance_colour_profile_from_png_chunks(double gamma, const double *chromaticities, int gray, uint8_t **out,
                                          size_t *out_length, char *message, size_t message_size);

/// Builds the ICC profile of RGB on `chromaticities` (white x, y, then red, green, blue x, y) with
/// the sRGB transfer curve: an nclx colour description (HEIF, AVIF) of other primaries than
/// sRGB's, as Display P3's. Returns as glance_colour_profile_from_png_chunks.
int glance_colour_profile_from_primaries(const double *chromaticities, uint8_t **out, size_t *out_length,
                                         char *message, size_t message_size);

#endif
