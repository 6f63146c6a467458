#ifndef PRINTBRIDGE_CCURL_SHIM_H
#define PRINTBRIDGE_CCURL_SHIM_H

#include <curl/curl.h>

/* curl_easy_setopt is variadic: one typed wrapper per argument kind. */
static inline CURLcode pb_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/* Pointer-valued options (strings, curl_slist, user data). */
static inline CURLcode pb_curl_easy_setopt_ptr(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

/* Callback-valued options (write/header functions). */
static inline CURLcode pb_curl_easy_setopt_func(CURL *handle, CURLoption option,
                                                size_t (*value)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, option, value);
}

/* The socket callbacks: told of each socket libcurl makes, and asked to close it. */
static inline CURLcode pb_curl_easy_setopt_sockopt(CURL *handle, curl_sockopt_callback value) {
    return curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, value);
}

static inline CURLcode pb_curl_easy_setopt_closesocket(CURL *handle, curl_closesocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, value);
}

/* curl_easy_getinfo is variadic too: typed long and pointer readers. */
static inline CURLcode pb_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode pb_curl_easy_getinfo_ptr(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode pb_curl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* curl_multi_setopt is variadic: long-valued options (pipelining, max streams). */
static inline CURLMcode pb_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

/* CURLVERSION_NOW is a macro alias of the newest CURLversion enumerator. */
static inline curl_version_info_data *pb_curl_version_info_now(void) {
    return curl_version_info(CURLVERSION_NOW);
}

#endif
