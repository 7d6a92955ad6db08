#include "CImagoAllocationCounter.h"

#if defined(__linux__) && defined(__GLIBC__) && !defined(IMAGO_NO_ALLOCATION_COUNTER)

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

// glibc's own allocator entries, exported for exactly this use: a program that defines malloc and
// still wants glibc's. Calling them, not dlsym(RTLD_NEXT, …), keeps the first allocation of the
// process (made before any dlsym could run) simple.
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

static atomic_bool counting = false;
static atomic_uint_fast64_t allocations = 0;

static inline void count(void) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    }
}

void *malloc(size_t size) {
    count();
    return __libc_malloc(size);
}

void *calloc(size_t count_, size_t size) {
    count();
    return __libc_calloc(count_, size);
}

// A realloc is counted as an allocation: it may move the block, and either way it is a call into
// the allocator that the hot paths should not make.
void *realloc(void *pointer, size_t size) {
    count();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) { __libc_free(pointer); }

void *memalign(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // POSIX: a power of two and a multiple of sizeof(void *), else EINVAL with *result untouched.
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
        return EINVAL;
    }
    count();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) {
        return ENOMEM;
    }
    *result = pointer;
    return 0;
}

void *valloc(size_t size) {
    count();
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    count();
    return __libc_pvalloc(size);
}

bool imago_allocation_counter_installed(void) { return true; }

void imago_allocation_counting_begin(void) {
    atomic_store_explicit(&allocations, 0, memory_order_relaxed);
    atomic_store_explicit(&counting, true, memory_order_seq_cst);
}

uint64_t imago_allocation_counting_end(void) {
    atomic_store_explicit(&counting, false, memory_order_seq_cst);
    return atomic_load_explicit(&allocations, memory_order_relaxed);
}

#else

bool imago_allocation_counter_installed(void) { return false; }

void imago_allocation_counting_begin(void) {}

uint64_t imago_allocation_counting_end(void) { return 0; }

#endif
