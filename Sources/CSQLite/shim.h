#ifndef PRINTBRIDGE_CSQLITE_SHIM_H
#define PRINTBRIDGE_CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a cast macro ((sqlite3_destructor_type)-1) Swift cannot import. */
static inline sqlite3_destructor_type pb_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_config is variadic, which Swift cannot call. SQLite's default page
   cache takes 20 pages (~87 KB) per connection at its first read and writes a
   header into every one, so all of it is resident at once; the device store
   reads a handful of pages. With no initial bulk allocation, pages are
   allocated as the store uses them. Takes effect only before SQLite
   initialises (the first sqlite3_open). */
static inline int pb_sqlite_config_pagecache_on_demand(void) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
}

#endif
