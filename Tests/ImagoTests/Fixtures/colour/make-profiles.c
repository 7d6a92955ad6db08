/* Builds an RGB matrix/TRC ICC profile with Little CMS from a white point, three primaries and a
   parametric transfer curve, with the given description tag. make-colour-fixtures.py compiles this
   at run time (cc make-profiles.c -llcms2, from Debian's liblcms2-dev) for the profiles no Debian
   package ships: Display P3, BT.2020 with the BT.709 transfer, and the one a PNG's gAMA/cHRM imply.

   usage: make-profiles OUT.icc DESCRIPTION wx wy rx ry gx gy bx by CURVE_TYPE P0 [P1 ...]
   CURVE_TYPE is an ICC parametric curve type as Little CMS numbers them (1: Y = X^g;
   4: Y = (aX+b)^g for X >= d, else cX) and P0... its parameters in ICC order (g, a, b, c, d). */
#include <stdio.h>
#include <stdlib.h>
#include <lcms2.h>

int main(int argc, char **argv) {
    if (argc < 13) {
        fprintf(stderr, "usage: make-profiles OUT.icc DESCRIPTION wx wy rx ry gx gy bx by CURVE_TYPE P0 [P1 ...]\n");
        return 2;
    }
    double v[8];
    for (int i = 0; i < 8; i++) v[i] = atof(argv[3 + i]);
    int type = atoi(argv[11]);
    double params[10] = {0};
    int count = argc - 12;
    if (count > 10) { fprintf(stderr, "too many curve parameters\n"); return 2; }
    for (int i = 0; i < count; i++) params[i] = atof(argv[12 + i]);

    cmsCIExyY white = {v[0], v[1], 1.0};
    cmsCIExyYTRIPLE primaries = {{v[2], v[3], 1.0}, {v[4], v[5], 1.0}, {v[6], v[7], 1.0}};
    cmsToneCurve *curve = cmsBuildParametricToneCurve(NULL, type, params);
    if (!curve) { fprintf(stderr, "bad curve\n"); return 1; }
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE profile = cmsCreateRGBProfile(&white, &primaries, curves);
    if (!profile) { fprintf(stderr, "cmsCreateRGBProfile failed\n"); return 1; }

    cmsMLU *description = cmsMLUalloc(NULL, 1);
    cmsMLU *copyright = cmsMLUalloc(NULL, 1);
    cmsMLUsetASCII(description, "en", "US", argv[2]);
    cmsMLUsetASCII(copyright, "en", "US", "No copyright, use freely");
    if (!cmsWriteTag(profile, cmsSigProfileDescriptionTag, description)
        || !cmsWriteTag(profile, cmsSigCopyrightTag, copyright)) {
        fprintf(stderr, "cmsWriteTag failed\n");
        return 1;
    }

    cmsUInt32Number size = 0;
    if (!cmsSaveProfileToMem(profile, NULL, &size)) { fprintf(stderr, "cmsSaveProfileToMem failed\n"); return 1; }
    void *bytes = malloc(size);
    if (!bytes || !cmsSaveProfileToMem(profile, bytes, &size)) { fprintf(stderr, "cmsSaveProfileToMem failed\n"); return 1; }
    FILE *out = fopen(argv[1], "wb");
    if (!out || fwrite(bytes, 1, size, out) != size || fclose(out) != 0) { perror(argv[1]); return 1; }

    free(bytes);
    cmsMLUfree(description);
    cmsMLUfree(copyright);
    cmsFreeToneCurve(curve);
    cmsCloseProfile(profile);
    return 0;
}
