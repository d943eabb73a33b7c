// See include/glance_tone_map.h.
#include "glance_tone_map.h"

#include <stdlib.h>

/// PQ (SMPTE ST 2084): a non-linear value (0 to 1) to cd/m², and back.
static double pq_to_light(double value) {
    const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32,
                 c3 = 2392.0 / 4096 * 32;
    double power = pow(value < 0 ? 0 : value, 1 / m2);
    double numerator = power - c1 > 0 ? power - c1 : 0;
    return 10000 * pow(numerator / (c2 - c3 * power), 1 / m1);
}

static double light_to_pq(double light) {
    const double m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32,
                 c3 = 2392.0 / 4096 * 32;
    double power = pow((light < 0 ? 0 : light) / 10000, m1);
    return pow((c1 + c2 * power) / (1 + c3 * power), m2);
}

/// HLG's inverse OETF (ARIB STD-B67): a non-linear value to scene light, 0 to 1.
static double hlg_to_scene(double value) {
    const double a = 0.17883277, b = 0.28466892, c = 0.55991073;
    if (value <= 0.5) return value * value / 3;
    return (exp((value - c) / a) + b) / 12;
}

/// BT.2390's EETF: display light `light` of content peaking at `peak` (cd/m²) mapped into
/// [0, GLANCE_SDR_WHITE], on the PQ scale, linear below the knee and a Hermite spline above it; then
/// relative to SDR white (0 to 1). Content that peaks at or below SDR white is only scaled.
static double tone_curve(double light, double peak) {
    if (peak <= GLANCE_SDR_WHITE) return light / GLANCE_SDR_WHITE > 1 ? 1 : light / GLANCE_SDR_WHITE;
    double source_peak = light_to_pq(peak);
    double value = light_to_pq(light) / source_peak;
    double target = light_to_pq(GLANCE_SDR_WHITE) / source_peak;
    double knee = 1.5 * target - 0.5;
    if (value > knee) {
        double t = (value - knee) / (1 - knee), t2 = t * t, t3 = t2 * t;
        value = (2 * t3 - 3 * t2 + 1) * knee + (t3 - 2 * t2 + t) * (1 - knee) + (-2 * t3 + 3 * t2) * target;
    }
    double mapped = pq_to_light(value * source_peak) / GLANCE_SDR_WHITE;
    return mapped > 1 ? 1 : mapped;
}

void glance_hdr_tables_build(glance_hdr_tables *tables, int hlg, double peak) {
    if (hlg) peak = GLANCE_HLG_PEAK;
    if (!(peak > GLANCE_SDR_WHITE && peak <= 10000)) peak = 1000;  // HDR10's usual mastering peak when unsaid
    tables->peak = peak;
    tables->hlg = hlg;
    for (int index = 0; index < GLANCE_HDR_CURVE_SIZE; index++) {
        double value = (index + 0.5) / GLANCE_HDR_CURVE_SIZE;
        tables->light[index] = (float)(hlg ? hlg_to_scene(value) : pq_to_light(value));
        double step = (double)index / (GLANCE_HDR_CURVE_SIZE - 1);
        tables->curve[index] = (float)tone_curve(step * step * peak, peak);
        double linear = step * step;
        double encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055;
        tables->encode[index] = (uint8_t)lround(encoded * 255);
    }
}

double glance_hdr_tone_map_grey(int hlg, double peak, int code) {
    glance_hdr_tables *tables = malloc(sizeof *tables);
    if (tables == NULL) return -1;
    glance_hdr_tables_build(tables, hlg, peak);
    double light = tables->light[(uint16_t)code >> 4];
    if (hlg) light *= GLANCE_HLG_PEAK * (light > 0 ? pow(light, GLANCE_HLG_GAMMA - 1) : 0);
    double mapped = light > 0 ? tables->curve[glance_hdr_curve_index(light / tables->peak)] : 0;
    free(tables);
    return mapped;
}
