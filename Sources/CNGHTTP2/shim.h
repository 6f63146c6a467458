#ifndef PRINTBRIDGE_CNGHTTP2_SHIM_H
#define PRINTBRIDGE_CNGHTTP2_SHIM_H

/* nghttp2: the HTTP/2 framing layer the APNs client drives over its own
 * OpenSSL connection (the same library h2load and libcurl use). */
#include <nghttp2/nghttp2.h>

#endif
