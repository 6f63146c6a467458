#ifndef PRINTBRIDGE_CNGHTTP2_SHIM_H
#define PRINTBRIDGE_CNGHTTP2_SHIM_H

/* nghttp2: the HTTP/2 framing layer the APNs client drives over its own
 * OpenSSL connection (the same library h2load and libcurl use). */
#include <nghttp2/nghttp2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A memory pool for one nghttp2 session (nghttp2_session_client_new3's
 * nghttp2_mem): blocks of up to PB_POOL_LARGEST bytes, in 32-byte size
 * classes, go back on a free list of their class when nghttp2 frees them
 * and come off it at its next allocation of that class; larger blocks, and
 * any beyond PB_POOL_KEPT bytes kept, go to malloc and free. nghttp2 makes
 * and frees several small objects a request (the stream, the header
 * list's copy, the frame queued): glibc's malloc and free cost ~1,700
 * instructions a request where h2load's jemalloc cost less (callgrind, the
 * sender benchmark); the pool takes ~30 each. Linking jemalloc instead
 * would replace the whole process's allocator (BEHAVIOUR.md has the idle
 * figures). One session's pool is used on its one thread only, and drained
 * after nghttp2_session_del. */
#define PB_POOL_CLASS 32
#define PB_POOL_CLASSES 128
#define PB_POOL_LARGEST (PB_POOL_CLASS * PB_POOL_CLASSES)
#define PB_POOL_KEPT (256 * 1024)

typedef struct pb_nghttp2_pool {
    nghttp2_mem mem;
    void *free_lists[PB_POOL_CLASSES + 1];
    size_t kept;
} pb_nghttp2_pool;

/* Each block starts with a 16-byte header holding its class (0: large). */
#define PB_POOL_HEADER 16

static inline void *pb_pool_malloc(size_t size, void *user) {
    pb_nghttp2_pool *pool = (pb_nghttp2_pool *)user;
    size_t cls = size <= PB_POOL_LARGEST ? (size + PB_POOL_CLASS - 1) / PB_POOL_CLASS : 0;
    if (cls == 0 && size <= PB_POOL_LARGEST) cls = 1; /* size 0 */
    unsigned char *block = (unsigned char *)pool->free_lists[cls];
    if (cls != 0 && block != NULL) {
        pool->free_lists[cls] = *(void **)(block + PB_POOL_HEADER);
        pool->kept -= cls * PB_POOL_CLASS + PB_POOL_HEADER;
    } else {
        size_t payload = cls != 0 ? cls * PB_POOL_CLASS : size;
        if (payload > SIZE_MAX - PB_POOL_HEADER) return NULL;
        block = (unsigned char *)malloc(PB_POOL_HEADER + payload);
        if (block == NULL) return NULL;
        *(size_t *)block = cls;
        *(size_t *)(block + sizeof(size_t)) = payload;
    }
    return block + PB_POOL_HEADER;
}

static inline void pb_pool_free(void *ptr, void *user) {
    if (ptr == NULL) return;
    pb_nghttp2_pool *pool = (pb_nghttp2_pool *)user;
    unsigned char *block = (unsigned char *)ptr - PB_POOL_HEADER;
    size_t cls = *(size_t *)block;
    size_t bytes = cls * PB_POOL_CLASS + PB_POOL_HEADER;
    if (cls == 0 || pool->kept + bytes > PB_POOL_KEPT) {
        free(block);
        return;
    }
    *(void **)ptr = pool->free_lists[cls];
    pool->free_lists[cls] = block;
    pool->kept += bytes;
}

static inline void *pb_pool_calloc(size_t count, size_t size, void *user) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *ptr = pb_pool_malloc(count * size, user);
    if (ptr != NULL) memset(ptr, 0, count * size);
    return ptr;
}

static inline void *pb_pool_realloc(void *ptr, size_t size, void *user) {
    if (ptr == NULL) return pb_pool_malloc(size, user);
    size_t payload = *(size_t *)((unsigned char *)ptr - PB_POOL_HEADER + sizeof(size_t));
    if (size <= payload && size != 0) return ptr;
    if (size == 0) {
        pb_pool_free(ptr, user);
        return NULL;
    }
    void *larger = pb_pool_malloc(size, user);
    if (larger == NULL) return NULL;
    memcpy(larger, ptr, payload);
    pb_pool_free(ptr, user);
    return larger;
}

/* A new pool (NULL when out of memory); its nghttp2_mem is &pool->mem. */
static inline pb_nghttp2_pool *pb_nghttp2_pool_new(void) {
    pb_nghttp2_pool *pool = (pb_nghttp2_pool *)calloc(1, sizeof(pb_nghttp2_pool));
    if (pool == NULL) return NULL;
    pool->mem.mem_user_data = pool;
    pool->mem.malloc = pb_pool_malloc;
    pool->mem.free = pb_pool_free;
    pool->mem.calloc = pb_pool_calloc;
    pool->mem.realloc = pb_pool_realloc;
    return pool;
}

/* Frees the pool and what it kept: after nghttp2_session_del, never before. */
static inline void pb_nghttp2_pool_delete(pb_nghttp2_pool *pool) {
    if (pool == NULL) return;
    for (size_t cls = 1; cls <= PB_POOL_CLASSES; cls++) {
        unsigned char *block = (unsigned char *)pool->free_lists[cls];
        while (block != NULL) {
            unsigned char *next = (unsigned char *)*(void **)(block + PB_POOL_HEADER);
            free(block);
            block = next;
        }
    }
    free(pool);
}

#endif
