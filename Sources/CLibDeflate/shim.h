#ifndef CINEPACK_CLIBDEFLATE_SHIM_H
#define CINEPACK_CLIBDEFLATE_SHIM_H
#include <libdeflate.h>
#endif
