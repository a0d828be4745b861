// A malloc counter for floe-bench's memory workloads (M). The executable's definitions of the
// allocation functions take precedence over glibc's for every library in the process (the
// Swift runtime, Foundation, Floe); each counts, then forwards to glibc's implementation.
#include "MallocCounter.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static atomic_int counting;
static atomic_uint_fast64_t calls;
static atomic_uint_fast64_t bytes;

static inline void count(size_t size) {
    if (atomic_load_explicit(&counting, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&bytes, size, memory_order_relaxed);
    }
}

void *malloc(size_t size) {
    count(size);
    return __libc_malloc(size);
}

void *calloc(size_t number, size_t size) {
    count(number * size);
    return __libc_calloc(number, size);
}

void *realloc(void *pointer, size_t size) {
    count(size);
    return __libc_realloc(pointer, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    count(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    count(size);
    return __libc_memalign(alignment, size);
}

void floe_bench_malloc_counting(int on) { atomic_store(&counting, on); }

void floe_bench_malloc_reset(void) {
    atomic_store(&calls, 0);
    atomic_store(&bytes, 0);
}

uint64_t floe_bench_malloc_calls(void) { return atomic_load(&calls); }
uint64_t floe_bench_malloc_bytes(void) { return atomic_load(&bytes); }
