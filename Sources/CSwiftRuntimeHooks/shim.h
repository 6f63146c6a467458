#ifndef PRINTBRIDGE_CSWIFTRUNTIMEHOOKS_SHIM_H
#define PRINTBRIDGE_CSWIFTRUNTIMEHOOKS_SHIM_H

/* The Swift concurrency runtime's global-executor hooks (swift/Runtime/
 * Concurrency.h in the Swift repository: swift_task_enqueueGlobal_hook and
 * its delay, deadline and main-executor forms), declared so that `run`'s
 * MainThreadExecutor links against them by name. Looked up with dlsym
 * instead, they are not found in the deployed build, which exports no
 * symbols (Package.swift, --no-export-dynamic), and the agent silently kept
 * libdispatch's pool, awake every second. A job and the runtime's original
 * function are pointers here; the runtime's own types are not public. */

typedef void (*printbridge_enqueue_hook)(void *job, const void *original);
typedef void (*printbridge_enqueue_delay_hook)(unsigned long long delay, void *job, const void *original);
typedef void (*printbridge_enqueue_deadline_hook)(long long seconds, long long nanoseconds, long long toleranceSeconds,
                                                   long long toleranceNanoseconds, int clock, void *job,
                                                   const void *original);

extern printbridge_enqueue_hook swift_task_enqueueGlobal_hook;
extern printbridge_enqueue_delay_hook swift_task_enqueueGlobalWithDelay_hook;
extern printbridge_enqueue_deadline_hook swift_task_enqueueGlobalWithDeadline_hook;
extern printbridge_enqueue_hook swift_task_enqueueMainExecutor_hook;

/* Sets all four at once: once, from the main thread, before any task exists. */
static inline void printbridge_set_executor_hooks(printbridge_enqueue_hook global, printbridge_enqueue_delay_hook delay,
                                                  printbridge_enqueue_deadline_hook deadline,
                                                  printbridge_enqueue_hook main) {
    swift_task_enqueueGlobal_hook = global;
    swift_task_enqueueGlobalWithDelay_hook = delay;
    swift_task_enqueueGlobalWithDeadline_hook = deadline;
    swift_task_enqueueMainExecutor_hook = main;
}

#endif
