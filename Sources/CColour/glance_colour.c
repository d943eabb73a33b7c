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

struct glance_colour_transform {
    glance_colour_errors errors;   // first: the context's user data points here
    cmsContext context;
    cmsHTRANSFORM transform;
};

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

glance_colour_transform *glance_colour_transform_create(const uint8_t *icc, size_t length, int pixels,
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
    } else if (source != NULL && srgb != NULL) {
        // Perceptual with black-point compensation; matrix/curves profiles have no perceptual
        // table, and lcms then uses their colorimetric one, as every colour-managed viewer does.
        made->transform = cmsCreateTransformTHR(made->context, source, in_format, srgb, out_format,
                                                INTENT_PERCEPTUAL, flags | cmsFLAGS_BLACKPOINTCOMPENSATION);
    }
    if (source != NULL) cmsCloseProfile(source);
    if (srgb != NULL) cmsCloseProfile(srgb);
    if (made->transform == NULL) {
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
    cmsDoTransformLineStride(transform->transform, in, out, (cmsUInt32Number)width, (cmsUInt32Number)rows,
                             (cmsUInt32Number)in_stride, (cmsUInt32Number)out_stride, 0, 0);
}

void glance_colour_transform_free(glance_colour_transform *transform) {
    if (transform == NULL) return;
    cmsDeleteTransform(transform->transform);
    cmsDeleteContext(transform->context);
    free(transform);
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
    if (status != 0) glance_colour_fail(message, message_size, &errors, "gAMA and cHRM describe no usable colour space");
    if (profile != NULL) cmsCloseProfile(profile);
    cmsDeleteContext(context);
    return status;
}
