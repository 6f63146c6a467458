#ifndef PRINTBRIDGE_CGLIBCEXTRAS_SHIM_H
#define PRINTBRIDGE_CGLIBCEXTRAS_SHIM_H

/* glibc functions Swift's Glibc module leaves out, declared here instead of
 * looked up at run time: the heap trim and its thresholds, the eventfd that
 * wakes the APNs client's poll and the store's queues, and thread names. */
#ifdef __linux__
#include <malloc.h>
#include <pthread.h>
#include <sys/eventfd.h>

/* A GNU extension: Swift's Glibc module is built without _GNU_SOURCE, so its
 * <pthread.h> does not declare it. The prototype is glibc's. */
extern int pthread_setname_np(pthread_t thread, const char *name);
#endif

#endif
