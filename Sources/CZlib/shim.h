#ifndef PRINTBRIDGE_CZLIB_SHIM_H
#define PRINTBRIDGE_CZLIB_SHIM_H

/* Debian's zlib1g-dev: the PNG's deflate stream and chunk checksums. The
 * agent already loads zlib (libwebsockets and OpenSSL link it). */
#include <zlib.h>

#endif
