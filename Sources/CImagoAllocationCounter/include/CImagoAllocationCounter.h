#ifndef IMAGO_ALLOCATION_COUNTER_H
#define IMAGO_ALLOCATION_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/// Heap allocations counted for `imago-bench --counts`: on Linux with glibc, the executable that
/// links this target defines malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign,
/// valloc and pvalloc, so every library of the process (the Swift runtime, Foundation, Imago)
/// allocates through them; each forwards to glibc's own entry (`__libc_malloc`…) and, while counting
/// is on, adds one to a process-wide count. Elsewhere, and in sanitizer builds (whose runtimes own
/// malloc), nothing is interposed and `imago_allocation_counter_installed` is false.

/// Whether allocations are counted in this build.
bool imago_allocation_counter_installed(void);

/// Zeroes the count and starts counting, on every thread.
void imago_allocation_counting_begin(void);

/// Stops counting and returns the allocations made since `imago_allocation_counting_begin`.
uint64_t imago_allocation_counting_end(void);

#endif
