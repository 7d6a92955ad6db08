/* Little CMS 2 behind a few calls: transforms from a file's profile to sRGB, and RGB profiles built
 * from chromaticities and a transfer curve. */
#if defined(__linux__) /* Apple platforms convert with ImageIO and CoreGraphics. */
#include "requirements.h"
#include "CImagoColor.h"

#include <lcms2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Entries of the table from linear light back to sRGB bytes: 8192 steps keep every result within
 * half a level of the exact curve (the sRGB curve is steepest at black, 12.92 levels per step of
 * 1/255 in linear light). */
#define FAST_OUTPUT_STEPS 8192

/* A matrix/TRC profile to sRGB, 8-bit RGBA: what Little CMS computes for the relative colorimetric
 * intent (both profiles' colorants are already adapted to the D50 connection space, so the
 * conversion is the source's tone curves, one 3x3 matrix, and sRGB's inverse curve), in floating
 * point with two tables. Little CMS 2.14's own 8-bit path for it takes about 13 ns a pixel, this
 * about 2: the difference between a photo's colour costing 35% of its thumbnail and a few. */
struct fast_matrix_shaper {
    float input[3][256]; /* each channel's byte to linear light */
    float matrix[9];     /* linear source RGB to linear sRGB, row-major */
    uint8_t output[FAST_OUTPUT_STEPS]; /* linear light (0...1 in FAST_OUTPUT_STEPS - 1 steps) to an sRGB byte */
};

struct imago_color_transform {
    cmsHTRANSFORM transform;
    imago_color_layout layout;
    struct fast_matrix_shaper *fast; /* set for IMAGO_COLOR_RGBA8 from a matrix/TRC profile */
};

/* Where Little CMS's error handler writes, through the context's user data. */
struct message_sink {
    char *message;
    size_t capacity;
};

static void log_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)code;
    struct message_sink *sink = (struct message_sink *)cmsGetContextUserData(context);
    if (sink && sink->message && sink->capacity > 0 && sink->message[0] == 0) {
        snprintf(sink->message, sink->capacity, "Little CMS: %s", text ? text : "unknown error");
    }
}

static void set_message(char *message, size_t capacity, const char *text) {
    if (message && capacity > 0 && message[0] == 0) snprintf(message, capacity, "%s", text);
}

/* A Little CMS context whose errors are written to `sink` (which must outlive the calls made with
 * it); NULL, with the message set, when there is no memory for one. */
static cmsContext open_context(struct message_sink *sink) {
    cmsContext context = cmsCreateContext(NULL, sink);
    if (!context) {
        set_message(sink->message, sink->capacity, "Little CMS could not start (out of memory)");
        return NULL;
    }
    cmsSetLogErrorHandlerTHR(context, log_error);
    return context;
}

static cmsUInt32Number input_format(imago_color_layout layout) {
    switch (layout) {
    case IMAGO_COLOR_RGBA8: return TYPE_RGBA_8;
    case IMAGO_COLOR_GRAY_IN_RGBA8: return COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(3);
    case IMAGO_COLOR_CMYK8: return TYPE_CMYK_8;
    case IMAGO_COLOR_CMYK8_INVERTED: return TYPE_CMYK_8_REV;
    case IMAGO_COLOR_RGB16BE: return TYPE_RGB_16_SE;
    case IMAGO_COLOR_RGBA16BE: return TYPE_RGBA_16_SE;
    case IMAGO_COLOR_SRGB_TO_PROFILE_RGBA8: return TYPE_RGBA_8;
    }
    return 0;
}

static cmsColorSpaceSignature input_space(imago_color_layout layout) {
    switch (layout) {
    case IMAGO_COLOR_GRAY_IN_RGBA8: return cmsSigGrayData;
    case IMAGO_COLOR_CMYK8:
    case IMAGO_COLOR_CMYK8_INVERTED: return cmsSigCmykData;
    default: return cmsSigRgbData;
    }
}

/* Layouts whose alpha Little CMS copies (same number of extra channels in and out). The 8-bit
 * layouts converted in place keep their alpha byte untouched instead. */
static int copies_alpha(imago_color_layout layout) {
    return layout == IMAGO_COLOR_RGBA16BE;
}

/* The 3x3 inverse of `m` (row-major) into `inverse`; 0 when it is singular. */
static int invert3(const double m[9], double inverse[9]) {
    double det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
    if (!(det > 1e-12 || det < -1e-12)) return 0;
    inverse[0] = (m[4] * m[8] - m[5] * m[7]) / det;
    inverse[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    inverse[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    inverse[3] = (m[5] * m[6] - m[3] * m[8]) / det;
    inverse[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    inverse[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    inverse[6] = (m[3] * m[7] - m[4] * m[6]) / det;
    inverse[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    inverse[8] = (m[0] * m[4] - m[1] * m[3]) / det;
    return 1;
}

/* The colorants of a matrix/TRC profile as a row-major matrix whose columns are R, G, B's XYZ. */
static int colorants(cmsHPROFILE profile, double m[9]) {
    const cmsCIEXYZ *r = cmsReadTag(profile, cmsSigRedColorantTag);
    const cmsCIEXYZ *g = cmsReadTag(profile, cmsSigGreenColorantTag);
    const cmsCIEXYZ *b = cmsReadTag(profile, cmsSigBlueColorantTag);
    if (!r || !g || !b) return 0;
    const double values[9] = {r->X, g->X, b->X, r->Y, g->Y, b->Y, r->Z, g->Z, b->Z};
    for (int i = 0; i < 9; i++) {
        if (!(values[i] > -16.0 && values[i] < 16.0)) return 0; /* NaN or absurd */
        m[i] = values[i];
    }
    return 1;
}

/* The fast path for a matrix/TRC RGB profile, or NULL when the profile is anything else. */
static struct fast_matrix_shaper *fast_create(cmsHPROFILE source, cmsHPROFILE srgb) {
    if (cmsGetColorSpace(source) != cmsSigRgbData || cmsGetPCS(source) != cmsSigXYZData) return NULL;
    if (!cmsIsMatrixShaper(source) || cmsIsCLUT(source, INTENT_RELATIVE_COLORIMETRIC, LCMS_USED_AS_INPUT)) return NULL;
    cmsToneCurve *curves[3] = {cmsReadTag(source, cmsSigRedTRCTag), cmsReadTag(source, cmsSigGreenTRCTag),
                               cmsReadTag(source, cmsSigBlueTRCTag)};
    if (!curves[0] || !curves[1] || !curves[2]) return NULL;
    double from[9], to[9], to_inverse[9];
    if (!colorants(source, from) || !colorants(srgb, to) || !invert3(to, to_inverse)) return NULL;
    struct fast_matrix_shaper *fast = calloc(1, sizeof *fast);
    if (!fast) return NULL;
    for (int row = 0; row < 3; row++) {
        for (int column = 0; column < 3; column++) {
            double sum = 0;
            for (int k = 0; k < 3; k++) sum += to_inverse[row * 3 + k] * from[k * 3 + column];
            fast->matrix[row * 3 + column] = (float)sum;
        }
    }
    for (int channel = 0; channel < 3; channel++) {
        for (int value = 0; value < 256; value++) {
            float linear = cmsEvalToneCurveFloat(curves[channel], (cmsFloat32Number)value / 255.0f);
            if (!(linear >= -1.0f && linear <= 2.0f)) { /* NaN or a curve gone wild: leave it to Little CMS */
                free(fast);
                return NULL;
            }
            fast->input[channel][value] = linear;
        }
    }
    for (int step = 0; step < FAST_OUTPUT_STEPS; step++) {
        double linear = (double)step / (FAST_OUTPUT_STEPS - 1);
        double encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1.0 / 2.4) - 0.055;
        fast->output[step] = (uint8_t)(encoded * 255.0 + 0.5);
    }
    return fast;
}

static inline uint8_t fast_encode(const struct fast_matrix_shaper *fast, float linear) {
    /* Clipped to the sRGB gamut, as Little CMS's 8-bit output is, without branches (minss and
     * maxss; the tables are finite, so no NaN reaches here). */
    float clipped = linear > 0.0f ? linear : 0.0f;
    clipped = clipped < 1.0f ? clipped : 1.0f;
    return fast->output[(int)(clipped * (FAST_OUTPUT_STEPS - 1) + 0.5f)];
}

static void fast_apply(const struct fast_matrix_shaper *fast, const uint8_t *input, size_t input_stride,
                       uint8_t *output, size_t output_stride, size_t width, size_t rows) {
    const float *m = fast->matrix;
    for (size_t y = 0; y < rows; y++) {
        const uint8_t *in = input + y * input_stride;
        uint8_t *out = output + y * output_stride;
        for (size_t x = 0; x < width; x++, in += 4, out += 4) {
            float r = fast->input[0][in[0]], g = fast->input[1][in[1]], b = fast->input[2][in[2]];
            uint8_t alpha = in[3];
            out[0] = fast_encode(fast, m[0] * r + m[1] * g + m[2] * b);
            out[1] = fast_encode(fast, m[3] * r + m[4] * g + m[5] * b);
            out[2] = fast_encode(fast, m[6] * r + m[7] * g + m[8] * b);
            out[3] = alpha;
        }
    }
}

imago_color_transform *imago_color_transform_create(const uint8_t *icc, size_t size, imago_color_layout layout,
                                                    char *message, size_t capacity) {
    if (message && capacity > 0) message[0] = 0;
    cmsUInt32Number format = input_format(layout);
    if (!format) {
        set_message(message, capacity, "unknown pixel layout");
        return NULL;
    }
    if (!icc || size == 0 || size > 0x7fffffff) {
        set_message(message, capacity, "no profile bytes");
        return NULL;
    }
    struct message_sink sink = {message, capacity};
    cmsContext context = open_context(&sink);
    if (!context) return NULL;
    imago_color_transform *result = NULL;
    cmsHPROFILE source = cmsOpenProfileFromMemTHR(context, icc, (cmsUInt32Number)size);
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    if (!source) {
        set_message(message, capacity, "Little CMS could not read the profile");
    } else if (!srgb) {
        set_message(message, capacity, "Little CMS could not build sRGB (out of memory)");
    } else if (cmsGetColorSpace(source) != input_space(layout)) {
        set_message(message, capacity, "the profile's colour space does not match the image's");
    } else {
        cmsUInt32Number flags = cmsFLAGS_NOCACHE | (copies_alpha(layout) ? cmsFLAGS_COPY_ALPHA : 0);
        /* From sRGB into the profile: what is drawn in sRGB (a watermark, a background colour) onto
         * pixels that stay in the profile's space. */
        int reverse = layout == IMAGO_COLOR_SRGB_TO_PROFILE_RGBA8;
        cmsHTRANSFORM transform = reverse
            ? cmsCreateTransformTHR(context, srgb, TYPE_RGBA_8, source, TYPE_RGBA_8, INTENT_RELATIVE_COLORIMETRIC, flags)
            : cmsCreateTransformTHR(context, source, format, srgb, TYPE_RGBA_8, INTENT_RELATIVE_COLORIMETRIC, flags);
        if (!transform) {
            set_message(message, capacity, "Little CMS could not build a transform from the profile");
        } else {
            result = calloc(1, sizeof *result);
            if (!result) {
                cmsDeleteTransform(transform);
                set_message(message, capacity, "out of memory");
            } else {
                result->transform = transform;
                result->layout = layout;
                if (layout == IMAGO_COLOR_RGBA8) result->fast = fast_create(source, srgb);
            }
        }
    }
    if (source) cmsCloseProfile(source);
    if (srgb) cmsCloseProfile(srgb);
    /* The transform keeps its own copies of what it needs; its context must outlive it, so the
     * sink is detached rather than the context deleted while a transform exists. */
    if (result) {
        cmsSetLogErrorHandlerTHR(context, NULL);
    } else {
        cmsDeleteContext(context);
    }
    return result;
}

void imago_color_transform_apply(const imago_color_transform *transform, const void *input, size_t input_stride,
                                 uint8_t *output, size_t output_stride, size_t width, size_t rows) {
    if (!transform || !input || !output || width == 0 || rows == 0) return;
    if (width > 0x7fffffff || rows > 0x7fffffff || input_stride > 0x7fffffff || output_stride > 0x7fffffff) return;
    if (transform->fast) {
        fast_apply(transform->fast, input, input_stride, output, output_stride, width, rows);
        return;
    }
    cmsDoTransformLineStride(transform->transform, input, output, (cmsUInt32Number)width, (cmsUInt32Number)rows,
                             (cmsUInt32Number)input_stride, (cmsUInt32Number)output_stride, 0, 0);
    /* Layouts with no alpha to copy or keep: the output is opaque. */
    switch (transform->layout) {
    case IMAGO_COLOR_CMYK8:
    case IMAGO_COLOR_CMYK8_INVERTED:
    case IMAGO_COLOR_RGB16BE:
        for (size_t y = 0; y < rows; y++) {
            uint8_t *row = output + y * output_stride;
            for (size_t x = 0; x < width; x++) row[x * 4 + 3] = 255;
        }
        break;
    default:
        break;
    }
}

void imago_color_transform_destroy(imago_color_transform *transform) {
    if (!transform) return;
    cmsContext context = cmsGetTransformContextID(transform->transform);
    cmsDeleteTransform(transform->transform);
    if (context) cmsDeleteContext(context);
    free(transform->fast);
    free(transform);
}

static cmsToneCurve *build_curve(cmsContext context, imago_transfer transfer, double gamma) {
    switch (transfer) {
    case IMAGO_TRANSFER_GAMMA:
        return cmsBuildGamma(context, gamma);
    case IMAGO_TRANSFER_LINEAR:
        return cmsBuildGamma(context, 1.0);
    case IMAGO_TRANSFER_SRGB: {
        /* Type 4: Y = (aX + b)^g for X >= d, Y = cX below. */
        const cmsFloat64Number srgb[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
        return cmsBuildParametricToneCurve(context, 4, srgb);
    }
    }
    return NULL;
}

uint8_t *imago_color_rgb_profile_create(const double chromaticities[8], imago_transfer transfer, double gamma,
                                        const char *description, size_t *size, char *message, size_t capacity) {
    if (message && capacity > 0) message[0] = 0;
    if (size) *size = 0;
    if (!chromaticities || !size) {
        set_message(message, capacity, "no chromaticities");
        return NULL;
    }
    for (int i = 0; i < 8; i++) {
        double value = chromaticities[i];
        if (!(value > 0.0 && value < 1.0)) {
            set_message(message, capacity, "a chromaticity is outside (0, 1)");
            return NULL;
        }
    }
    if (transfer == IMAGO_TRANSFER_GAMMA && !(gamma >= 0.1 && gamma <= 10.0)) {
        set_message(message, capacity, "the gamma is outside 0.1...10");
        return NULL;
    }
    struct message_sink sink = {message, capacity};
    cmsContext context = open_context(&sink);
    if (!context) return NULL;
    cmsCIExyY white = {chromaticities[0], chromaticities[1], 1.0};
    cmsCIExyYTRIPLE primaries = {
        {chromaticities[2], chromaticities[3], 1.0},
        {chromaticities[4], chromaticities[5], 1.0},
        {chromaticities[6], chromaticities[7], 1.0},
    };
    uint8_t *bytes = NULL;
    cmsToneCurve *curve = build_curve(context, transfer, gamma);
    cmsHPROFILE profile = NULL;
    if (curve) {
        cmsToneCurve *curves[3] = {curve, curve, curve};
        profile = cmsCreateRGBProfileTHR(context, &white, &primaries, curves);
    }
    if (!profile) {
        set_message(message, capacity, "Little CMS could not build the profile (degenerate primaries?)");
    } else {
        cmsMLU *text = cmsMLUalloc(context, 1);
        if (text && description) {
            cmsMLUsetASCII(text, "en", "US", description);
            cmsWriteTag(profile, cmsSigProfileDescriptionTag, text);
        }
        if (text) cmsMLUfree(text);
        cmsUInt32Number needed = 0;
        if (cmsSaveProfileToMem(profile, NULL, &needed) && needed > 0) {
            bytes = malloc(needed);
            if (bytes && cmsSaveProfileToMem(profile, bytes, &needed)) {
                *size = needed;
            } else {
                free(bytes);
                bytes = NULL;
                set_message(message, capacity, "Little CMS could not save the profile");
            }
        } else {
            set_message(message, capacity, "Little CMS could not save the profile");
        }
        cmsCloseProfile(profile);
    }
    if (curve) cmsFreeToneCurve(curve);
    cmsDeleteContext(context);
    return bytes;
}

void imago_color_free(void *pointer) { free(pointer); }

#endif /* __linux__ */
