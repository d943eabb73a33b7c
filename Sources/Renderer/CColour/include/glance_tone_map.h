// HDR video brought to SDR: PQ (SMPTE ST 2084) and HLG (ARIB STD-B67) light, BT.2390's tone
// curve towards BT.2408's reference white, BT.2020's primaries to BT.709's, and sRGB's encoding,
// as tables built once per frame. Used by the FFmpeg shim (CMedia) on a decoded frame.
#ifndef GLANCE_TONE_MAP_H
#define GLANCE_TONE_MAP_H

#include <math.h>
#include <stdint.h>

/// SDR white in cd/m²: BT.2408's reference (graphics) white, where HDR content puts what an SDR
/// picture shows as white.
#define GLANCE_SDR_WHITE 203.0
/// HLG's nominal display: a 1000 cd/m² peak, system gamma 1.2 (BT.2100).
#define GLANCE_HLG_PEAK 1000.0
#define GLANCE_HLG_GAMMA 1.2

enum { GLANCE_HDR_CURVE_SIZE = 4096 };

/// The tables one HDR conversion uses, built for the content's transfer and peak.
typedef struct {
    /// A 12-bit code (the 16-bit code's top bits) to light: PQ in cd/m², HLG in scene light.
    float light[GLANCE_HDR_CURVE_SIZE];
    /// sqrt(light / peak) in 4096 steps to the tone curve's output (relative to SDR white):
    /// square-root steps put most of them in the shadows, where the curve bends most.
    float curve[GLANCE_HDR_CURVE_SIZE];
    /// sqrt(linear) in 4096 steps to sRGB's 8-bit code.
    uint8_t encode[GLANCE_HDR_CURVE_SIZE];
    double peak;
    /// 1 for HLG, 0 for PQ.
    int hlg;
} glance_hdr_tables;

/// Fills `tables` for content in HLG (`hlg` 1) or PQ (0) whose peak is `peak` cd/m² (HLG's is
/// its nominal display's; a PQ peak that is not above SDR white or past 10,000 is taken as
/// HDR10's usual 1000).
void glance_hdr_tables_build(glance_hdr_tables *tables, int hlg, double peak);

/// The tone curve's output for a grey of 16-bit code `code`, relative to SDR white (0 to 1);
/// -1 when out of memory. For tests: the curve a frame's pixels take.
double glance_hdr_tone_map_grey(int hlg, double peak, int code);

static inline int glance_hdr_curve_index(double fraction) {
    int index = (int)(sqrt(fraction > 1 ? 1 : fraction) * (GLANCE_HDR_CURVE_SIZE - 1) + 0.5);
    return index < 0 ? 0 : index;
}

/// One pixel of BT.2020 non-linear RGB (16-bit codes) to 8-bit sRGB: to display light, the tone
/// curve applied to the brightest component (so that hue and saturation stay, where per-channel
/// curves turn bright colours white), BT.2020's primaries to BT.709's in linear light, clipped,
/// and encoded. Inline: it runs once a pixel.
static inline void glance_hdr_tone_map_pixel(const glance_hdr_tables *tables, const uint16_t in[3], uint8_t out[3]) {
    double light[3];
    for (int c = 0; c < 3; c++) light[c] = tables->light[in[c] >> 4];
    if (tables->hlg) {
        double scene = 0.2627 * light[0] + 0.6780 * light[1] + 0.0593 * light[2];
        double gain = GLANCE_HLG_PEAK * (scene > 0 ? pow(scene, GLANCE_HLG_GAMMA - 1) : 0);
        for (int c = 0; c < 3; c++) light[c] *= gain;
    }
    double brightest = light[0] > light[1] ? light[0] : light[1];
    if (light[2] > brightest) brightest = light[2];
    double scale = brightest > 0 ? tables->curve[glance_hdr_curve_index(brightest / tables->peak)] / brightest : 0;
    double r = light[0] * scale, g = light[1] * scale, b = light[2] * scale;
    double linear[3] = {1.6605 * r - 0.5876 * g - 0.0728 * b, -0.1246 * r + 1.1329 * g - 0.0083 * b,
                        -0.0182 * r - 0.1006 * g + 1.1187 * b};
    for (int c = 0; c < 3; c++) out[c] = tables->encode[glance_hdr_curve_index(linear[c] < 0 ? 0 : linear[c])];
}

#endif
