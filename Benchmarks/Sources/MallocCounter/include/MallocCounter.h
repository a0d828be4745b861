#ifndef FLOE_BENCH_MALLOC_COUNTER_H
#define FLOE_BENCH_MALLOC_COUNTER_H

#include <stdint.h>

/// Allocations (calls and bytes asked for) made by every thread of the process since the last
/// reset, while counting is on. The benchmark's executable defines malloc, calloc, realloc,
/// posix_memalign and aligned_alloc, which count and then call glibc's own.
void floe_bench_malloc_counting(int on);
void floe_bench_malloc_reset(void);
uint64_t floe_bench_malloc_calls(void);
uint64_t floe_bench_malloc_bytes(void);

#endif
