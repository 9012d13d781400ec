#ifndef CINEPACK_CZLIB_SHIM_H
#define CINEPACK_CZLIB_SHIM_H
#include <zlib.h>

/* deflateInit/inflateInit are function-like macros, which Swift does not import. */
static inline int cinepack_inflateInit(z_streamp strm) {
    return inflateInit(strm);
}
static inline int cinepack_deflateInit(z_streamp strm, int level) {
    return deflateInit(strm, level);
}
/* windowBits -15: a raw deflate stream (ZIP members), no zlib header or trailer. */
static inline int cinepack_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
