#ifndef PRINTBRIDGE_CWSLAY_SHIM_H
#define PRINTBRIDGE_CWSLAY_SHIM_H

/* wslay's frame-level API (Debian's libwslay-dev 1.1.1): the HA link's
 * WebSocket frames over libwebsockets' RAW role. Debian ships no pkg-config
 * file for it (only CMake's), so the library is named here (`link "wslay"`). */
#include <wslay/wslay.h>

#endif
