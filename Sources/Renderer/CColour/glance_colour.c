// The Little CMS 2 shim: see include/glance_colour.h.
#include "glance_colour.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lcms2.h>

/// Where an lcms context's error handler leaves its message.
typedef struct {
    char message[200];
} glance_colour_errors;

static void glance_colour_on_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)code;
    glance_colour_errors *errors = (glance_colour_errors *)cmsGetContextUserData(context);
    if (errors != NULL && errors->message[0] == 0) snprintf(errors->message, sizeof errors->message, "%s", text);
}

static cmsContext glance_colour_context(glance_colour_errors *errors) {
    memset(errors, 0, sizeof *errors);
    cmsContext context = cmsCreateContext(NULL, errors);
    if (context != NULL) cmsSetLogErrorHandlerTHR(context, glance_colour_on_error);
    return context;
}

static void glance_colour_fail(char *message, size_t size, const glance_colour_errors *errors, const char *fallback) {
    if (message == NULL || size == 0) return;
    snprintf(message, size, "%s", errors != NULL && errors->message[0] ? errors->message : fallback);
}

static int glance_colour_space_of(cmsHPROFILE profile) {
    switch (cmsGetColorSpace(profile)) {
    case cmsSigRgbData: return GLANCE_COLOUR_SPACE_RGB;
    case cmsSigGrayData: return GLANCE_COLOUR_SPACE_GRAY;
    case cmsSigCmykData: return GLANCE_COLOUR_SPACE_CMYK;
    default: return GLANCE_COLOUR_SPACE_OTHER;
    }
}

/// Whether `profile` is an RGB matrix/curves profile whose colorants and curves are sRGB's (to
/// within a 1/255 step), compared with lcms's own sRGB rather than numbers copied in here.
static int glance_colour_is_srgb(cmsContext context, cmsHPROFILE profile) {
    if (cmsGetColorSpace(profile) != cmsSigRgbData || !cmsIsMatrixShaper(profile)) return 0;
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    if (srgb == NULL) return 0;
    int same = 1;
    const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int i = 0; i < 3 && same; i++) {
        const cmsCIEXYZ *mine = cmsReadTag(profile, colorants[i]);
        const cmsCIEXYZ *theirs = cmsReadTag(srgb, colorants[i]);
        if (mine == NULL || theirs == NULL || fabs(mine->X - theirs->X) > 0.003 ||
            fabs(mine->Y - theirs->Y) > 0.003 || fabs(mine->Z - theirs->Z) > 0.003) {
            same = 0;
            break;
        }
        const cmsToneCurve *curve = cmsReadTag(profile, curves[i]);
        const cmsToneCurve *reference = cmsReadTag(srgb, curves[i]);
        if (curve == NULL || reference == NULL) { same = 0; break; }
        for (int step = 0; step <= 32; step++) {
            float x = (float)step / 32.0f;
            if (fabsf(cmsEvalToneCurveFloat(curve, x) - cmsEvalToneCurveFloat(reference, x)) > 0.5f / 255.0f) {
                same = 0;
                break;
            }
        }
    }
    cmsCloseProfile(srgb);
    return same;
}

int glance_colour_inspect(const uint8_t *icc, size_t length, glance_colour_profile_info *info,
                          char *message, size_t message_size) {
    memset(info, 0, sizeof *info);
    glance_colour_errors errors;
    cmsContext context = glance_colour_context(&errors);
    if (context == NULL) { glance_colour_fail(message, message_size, NULL, "out of memory"); return -1; }
    if (length > UINT32_MAX) { glance_colour_fail(message, message_size, NULL, "profile too large"); cmsDeleteContext(context); return -1; }
    cmsHPROFILE profile = cmsOpenProfileFromMemTHR(context, icc, (cmsUInt32Number)length);
    if (profile == NULL) {
        glance_colour_fail(message, message_size, &errors, "not a readable ICC profile");
        cmsDeleteContext(context);
        return -1;
    }
    info->space = glance_colour_space_of(profile);
    cmsProfileClassSignature class = cmsGetDeviceClass(profile);
    info->is_display_class = class == cmsSigInputClass || class == cmsSigDisplayClass ||
                             class == cmsSigOutputClass || class == cmsSigColorSpaceClass;
    info->is_srgb = glance_colour_is_srgb(context, profile);
    cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", info->description, sizeof info->description);
    info->description[sizeof info->description - 1] = 0;
    cmsCloseProfile(profile);
    cmsDeleteContext(context);
    return 0;
}

/// Entries of the table that encodes linear light as sRGB: fine enough that the darkest step
/// (where sRGB's curve is steepest, 12.92) is under half an 8-bit level, small enough (8 KiB) to
/// stay in the first-level cache with the curves.
#define GLANCE_ENCODE_STEPS 8192

/// The fast path for the common camera and display profiles (matrix and curves, RGB): 8-bit
/// samples to linear light by the profile's curves, one 3x3 matrix to linear sRGB, and sRGB's
/// curve by table. For such profiles this is exactly what lcms computes for the perceptual intent
/// (they have no perceptual table, and black-point compensation changes nothing when both black
/// points are zero), without its 3D table's interpolation, at a third of the time.
typedef struct {
    float decode[3][256];          // the source's curves
    float matrix[3][3];            // source linear RGB -> linear sRGB
    uint8_t encode[GLANCE_ENCODE_STEPS + 1];
} glance_matrix_shaper;

struct glance_colour_transform {
    glance_colour_errors errors;   // first: the context's user data points here
    cmsContext context;
    cmsHTRANSFORM transform;       // lcms's, or NULL when `shaper` does the work
    glance_matrix_shaper *shaper;
    int channels;                  // 3 or 4, for the fast path
};

/// A profile's colorants as a matrix (columns: red, green, blue XYZ), or 0 when missing.
static int glance_colorants(cmsHPROFILE profile, double m[3][3]) {
    const cmsTagSignature tags[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    for (int i = 0; i < 3; i++) {
        const cmsCIEXYZ *xyz = cmsReadTag(profile, tags[i]);
        if (xyz == NULL) return 0;
        m[0][i] = xyz->X; m[1][i] = xyz->Y; m[2][i] = xyz->Z;
    }
    return 1;
}

static int glance_invert(const double m[3][3], double out[3][3]) {
    double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                 m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
    if (fabs(det) < 1e-9) return 0;
    out[0][0] = (m[1][1] * m[2][2] - m[1][2] * m[2][1]) / det;
    out[0][1] = (m[0][2] * m[2][1] - m[0][1] * m[2][2]) / det;
    out[0][2] = (m[0][1] * m[1][2] - m[0][2] * m[1][1]) / det;
    out[1][0] = (m[1][2] * m[2][0] - m[1][0] * m[2][2]) / det;
    out[1][1] = (m[0][0] * m[2][2] - m[0][2] * m[2][0]) / det;
    out[1][2] = (m[0][2] * m[1][0] - m[0][0] * m[1][2]) / det;
    out[2][0] = (m[1][0] * m[2][1] - m[1][1] * m[2][0]) / det;
    out[2][1] = (m[0][1] * m[2][0] - m[0][0] * m[2][1]) / det;
    out[2][2] = (m[0][0] * m[1][1] - m[0][1] * m[1][0]) / det;
    return 1;
}

void glance_colour_linear_to_srgb_table(uint8_t table[65536]) {
    for (int v = 0; v < 65536; v++) {
        double linear = v / 65535.0;
        double encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
        table[v] = (uint8_t)(encoded * 255 + 0.5);
    }
}

int glance_colour_linear_matrix(const uint8_t *icc, size_t length, float matrix[3][3], char *message,
                                size_t message_size) {
    glance_colour_errors errors = {0};
    cmsContext context = length <= UINT32_MAX ? glance_colour_context(&errors) : NULL;
    if (context == NULL) {
        glance_colour_fail(message, message_size, NULL, "out of memory");
        return -1;
    }
    cmsHPROFILE source = cmsOpenProfileFromMemTHR(context, icc, (cmsUInt32Number)length);
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    double from[3][3], to[3][3], inverse[3][3];
    int status = -1;
    if (source != NULL && srgb != NULL && cmsGetColorSpace(source) == cmsSigGrayData) {
        // Gray is gray on any white: the identity.
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) matrix[i][j] = i == j;
        status = 0;
    } else if (source != NULL && srgb != NULL && cmsGetColorSpace(source) == cmsSigRgbData &&
               glance_colorants(source, from) && glance_colorants(srgb, to) && glance_invert(to, inverse)) {
        // Both profiles' colorants are adapted to the PCS's D50: one matrix from the first's
        // linear RGB to sRGB's.
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                matrix[i][j] = (float)(inverse[i][0] * from[0][j] + inverse[i][1] * from[1][j] +
                                       inverse[i][2] * from[2][j]);
        status = 0;
    } else if (source != NULL && errors.message[0] == 0) {
        snprintf(errors.message, sizeof errors.message, "the profile names no RGB primaries");
    }
    if (status != 0) glance_colour_fail(message, message_size, &errors, "not a usable ICC profile");
    if (source != NULL) cmsCloseProfile(source);
    if (srgb != NULL) cmsCloseProfile(srgb);
    cmsDeleteContext(context);
    return status;
}

/// The fast path for `source`, or NULL when it does not apply (not matrix/curves RGB, a curve
/// that does not start at black, a singular matrix).
static glance_matrix_shaper *glance_matrix_shaper_make(cmsContext context, cmsHPROFILE source) {
    if (cmsGetColorSpace(source) != cmsSigRgbData || !cmsIsMatrixShaper(source)) return NULL;
    const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    if (srgb == NULL) return NULL;
    glance_matrix_shaper *shaper = calloc(1, sizeof *shaper);
    double from[3][3], to[3][3], inverse[3][3];
    int usable = shaper != NULL && glance_colorants(source, from) && glance_colorants(srgb, to) &&
                 glance_invert(to, inverse);
    for (int c = 0; c < 3 && usable; c++) {
        const cmsToneCurve *curve = cmsReadTag(source, curves[c]);
        if (curve == NULL || fabsf(cmsEvalToneCurveFloat(curve, 0.0f)) > 1e-4f) { usable = 0; break; }
        for (int v = 0; v < 256; v++) shaper->decode[c][v] = cmsEvalToneCurveFloat(curve, (float)v / 255.0f);
    }
    const cmsToneCurve *srgb_curve = usable ? cmsReadTag(srgb, cmsSigRedTRCTag) : NULL;
    cmsToneCurve *encode = srgb_curve != NULL ? cmsReverseToneCurve(srgb_curve) : NULL;
    if (encode == NULL) usable = 0;
    if (usable) {
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                shaper->matrix[i][j] = (float)(inverse[i][0] * from[0][j] + inverse[i][1] * from[1][j] +
                                               inverse[i][2] * from[2][j]);
        for (int step = 0; step <= GLANCE_ENCODE_STEPS; step++) {
            float value = cmsEvalToneCurveFloat(encode, (float)step / GLANCE_ENCODE_STEPS) * 255.0f + 0.5f;
            shaper->encode[step] = (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
        }
    }
    if (encode != NULL) cmsFreeToneCurve(encode);
    cmsCloseProfile(srgb);
    if (!usable) { free(shaper); return NULL; }
    return shaper;
}

static inline uint8_t glance_encode_linear(const glance_matrix_shaper *shaper, float linear) {
    // Out of gamut clips, as lcms's colorimetric transforms do; fmaxf also turns NaN into 0.
    float clipped = fminf(fmaxf(linear, 0.0f), 1.0f);
    return shaper->encode[(int)(clipped * GLANCE_ENCODE_STEPS + 0.5f)];
}

static void glance_matrix_shaper_rows(const glance_matrix_shaper *shaper, int channels, const uint8_t *in,
                                      size_t in_stride, uint8_t *out, size_t out_stride, int width, int rows) {
    const float (*m)[3] = shaper->matrix;
    for (int y = 0; y < rows; y++) {
        const uint8_t *source = in + (size_t)y * in_stride;
        uint8_t *target = out + (size_t)y * out_stride;
        for (int x = 0; x < width; x++) {
            float r = shaper->decode[0][source[0]], g = shaper->decode[1][source[1]], b = shaper->decode[2][source[2]];
            uint8_t alpha = channels == 4 ? source[3] : 0;
            target[0] = glance_encode_linear(shaper, m[0][0] * r + m[0][1] * g + m[0][2] * b);
            target[1] = glance_encode_linear(shaper, m[1][0] * r + m[1][1] * g + m[1][2] * b);
            target[2] = glance_encode_linear(shaper, m[2][0] * r + m[2][1] * g + m[2][2] * b);
            if (channels == 4) target[3] = alpha;
            source += channels;
            target += channels;
        }
    }
}

/// lcms's format word for each pixel layout: input, then output.
static int glance_colour_formats(int pixels, cmsUInt32Number *in, cmsUInt32Number *out, cmsUInt32Number *flags,
                                 cmsColorSpaceSignature *space) {
    *flags = 0;
    switch (pixels) {
    case GLANCE_PIXELS_RGB:
        *in = TYPE_RGB_8; *out = TYPE_RGB_8; *space = cmsSigRgbData; return 0;
    case GLANCE_PIXELS_RGBA:
        *in = TYPE_RGBA_8; *out = TYPE_RGBA_8; *flags = cmsFLAGS_COPY_ALPHA; *space = cmsSigRgbData; return 0;
    case GLANCE_PIXELS_GRAY_IN_RGB:
        *in = COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(2);
        *out = TYPE_RGB_8; *space = cmsSigGrayData; return 0;
    case GLANCE_PIXELS_GRAY_IN_RGBA:
        *in = COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(3);
        *out = TYPE_RGBA_8; *space = cmsSigGrayData; return 0;
    case GLANCE_PIXELS_CMYK:
        *in = TYPE_CMYK_8; *out = TYPE_RGB_8; *space = cmsSigCmykData; return 0;
    case GLANCE_PIXELS_CMYK_INVERTED:
        *in = TYPE_CMYK_8_REV; *out = TYPE_RGB_8; *space = cmsSigCmykData; return 0;
    default:
        return -1;
    }
}

glance_colour_transform *glance_colour_transform_create(const uint8_t *icc, size_t length, int pixels, int exact,
                                                        char *message, size_t message_size) {
    cmsUInt32Number in_format, out_format, flags;
    cmsColorSpaceSignature space;
    if (glance_colour_formats(pixels, &in_format, &out_format, &flags, &space) != 0 || length > UINT32_MAX) {
        glance_colour_fail(message, message_size, NULL, "unknown pixel layout");
        return NULL;
    }
    glance_colour_transform *made = calloc(1, sizeof *made);
    if (made == NULL) { glance_colour_fail(message, message_size, NULL, "out of memory"); return NULL; }
    made->context = glance_colour_context(&made->errors);
    if (made->context == NULL) {
        glance_colour_fail(message, message_size, NULL, "out of memory");
        free(made);
        return NULL;
    }
    cmsHPROFILE source = cmsOpenProfileFromMemTHR(made->context, icc, (cmsUInt32Number)length);
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(made->context);
    if (source != NULL && cmsGetColorSpace(source) != space) {
        snprintf(made->errors.message, sizeof made->errors.message, "the profile is not for this image's colour space");
    } else if (source != NULL && !exact && (pixels == GLANCE_PIXELS_RGB || pixels == GLANCE_PIXELS_RGBA) &&
               (made->shaper = glance_matrix_shaper_make(made->context, source)) != NULL) {
        made->channels = pixels == GLANCE_PIXELS_RGBA ? 4 : 3;
    } else if (source != NULL && srgb != NULL) {
        // Perceptual with black-point compensation; matrix/curves profiles have no perceptual
        // table, and lcms then uses their colorimetric one, as every colour-managed viewer does.
        made->transform = cmsCreateTransformTHR(made->context, source, in_format, srgb, out_format,
                                                INTENT_PERCEPTUAL, flags | cmsFLAGS_BLACKPOINTCOMPENSATION);
    }
    if (source != NULL) cmsCloseProfile(source);
    if (srgb != NULL) cmsCloseProfile(srgb);
    if (made->transform == NULL && made->shaper == NULL) {
        glance_colour_fail(message, message_size, &made->errors, "not a usable ICC profile");
        cmsDeleteContext(made->context);
        free(made);
        return NULL;
    }
    return made;
}

void glance_colour_transform_rows(glance_colour_transform *transform, const uint8_t *in, size_t in_stride,
                                  uint8_t *out, size_t out_stride, int width, int rows) {
    if (width <= 0 || rows <= 0) return;
    if (transform->shaper != NULL) {
        glance_matrix_shaper_rows(transform->shaper, transform->channels, in, in_stride, out, out_stride, width, rows);
        return;
    }
    cmsDoTransformLineStride(transform->transform, in, out, (cmsUInt32Number)width, (cmsUInt32Number)rows,
                             (cmsUInt32Number)in_stride, (cmsUInt32Number)out_stride, 0, 0);
}

void glance_colour_transform_free(glance_colour_transform *transform) {
    if (transform == NULL) return;
    if (transform->transform != NULL) cmsDeleteTransform(transform->transform);
    free(transform->shaper);
    cmsDeleteContext(transform->context);
    free(transform);
}

/// Builds an RGB (or gray) profile of `curve` (taken, then freed) on `chromaticities` (white, red,
/// green, blue x, y; NULL: sRGB's with D65) into `*out`; `what` names the source in a failure.
static int profile_from_curve(cmsContext context, glance_colour_errors *errors, cmsToneCurve *curve,
                              const double *chromaticities, int gray, uint8_t **out, size_t *out_length,
                              char *message, size_t message_size, const char *what) {
    cmsCIExyY white = {0.3127, 0.3290, 1.0};
    cmsCIExyYTRIPLE primaries = {{0.64, 0.33, 1.0}, {0.30, 0.60, 1.0}, {0.15, 0.06, 1.0}};
    if (chromaticities != NULL) {
        white = (cmsCIExyY){chromaticities[0], chromaticities[1], 1.0};
        primaries = (cmsCIExyYTRIPLE){{chromaticities[2], chromaticities[3], 1.0},
                                       {chromaticities[4], chromaticities[5], 1.0},
                                       {chromaticities[6], chromaticities[7], 1.0}};
    }
    cmsHPROFILE profile = NULL;
    if (curve != NULL) {
        if (gray) {
            profile = cmsCreateGrayProfileTHR(context, &white, curve);
        } else {
            cmsToneCurve *curves[3] = {curve, curve, curve};
            profile = cmsCreateRGBProfileTHR(context, &white, &primaries, curves);
        }
        cmsFreeToneCurve(curve);
    }
    int status = -1;
    cmsUInt32Number needed = 0;
    if (profile != NULL && cmsSaveProfileToMem(profile, NULL, &needed) && needed > 0) {
        uint8_t *bytes = malloc(needed);
        if (bytes != NULL && cmsSaveProfileToMem(profile, bytes, &needed)) {
            *out = bytes;
            *out_length = needed;
            status = 0;
        } else {
            free(bytes);
        }
    }
    if (status != 0) glance_colour_fail(message, message_size, errors, what);
    if (profile != NULL) cmsCloseProfile(profile);
    return status;
}

int glance_colour_profile_from_png_chunks(double gamma, const double *chromaticities, int gray, uint8_t **out,
                                          size_t *out_length, char *message, size_t message_size) {
    *out = NULL;
    *out_length = 0;
    if (!(gamma > 0.01 && gamma < 100.0)) {
        glance_colour_fail(message, message_size, NULL, "gAMA out of range");
        return -1;
    }
    glance_colour_errors errors;
    cmsContext context = glance_colour_context(&errors);
    if (context == NULL) { glance_colour_fail(message, message_size, NULL, "out of memory"); return -1; }
    // gAMA is the encoding exponent: samples are linear light raised to it, so decoding raises
    // them to its inverse.
    cmsToneCurve *curve = cmsBuildGamma(context, 1.0 / gamma);
    int status = profile_from_curve(context, &errors, curve, chromaticities, gray, out, out_length, message,
                                    message_size, "gAMA and cHRM describe no usable colour space");
    cmsDeleteContext(context);
    return status;
}

int glance_colour_profile_from_primaries(const double *chromaticities, uint8_t **out, size_t *out_length,
                                         char *message, size_t message_size) {
    *out = NULL;
    *out_length = 0;
    glance_colour_errors errors;
    cmsContext context = glance_colour_context(&errors);
    if (context == NULL) { glance_colour_fail(message, message_size, NULL, "out of memory"); return -1; }
    // The sRGB transfer function: IEC 61966-2-1's piecewise curve, lcms's parametric type 4.
    const cmsFloat64Number srgb[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(context, 4, srgb);
    int status = profile_from_curve(context, &errors, curve, chromaticities, 0, out, out_length, message,
                                    message_size, "the primaries describe no usable colour space");
    cmsDeleteContext(context);
    return status;
}

int glance_colour_primaries_matrix(const double chromaticities[8], float matrix[3][3]) {
    const double srgb[8] = {0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06};
    int differs = 0;
    for (int i = 0; i < 8; i++) differs |= fabs(chromaticities[i] - srgb[i]) > 0.001;
    if (!differs) return 0;
    uint8_t *icc = NULL;
    size_t length = 0;
    char message[200];
    int made = glance_colour_profile_from_primaries(chromaticities, &icc, &length, message, sizeof message) == 0 &&
               glance_colour_linear_matrix(icc, length, matrix, message, sizeof message) == 0;
    free(icc);
    return made ? 1 : -1;
}
