#ifndef PRINTBRIDGE_CQRENCODE_SHIM_H
#define PRINTBRIDGE_CQRENCODE_SHIM_H

/* Debian's libqrencode-dev: the QR code encoder `printbridge pair` draws. */
#include <qrencode.h>

#endif
