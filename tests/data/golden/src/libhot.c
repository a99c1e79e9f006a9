/* SPDX-License-Identifier: MIT */
/*
 * libhot: the shared library of the libwork workload (built as tests/workloads/libhot.so).
 * lib_hot(n, x) runs n steps of the same dependent multiply-add loop as libwork's local
 * function, so the time split between the two is the split of their step counts.
 *
 * Built with -O1 -g -fno-omit-frame-pointer -fno-inline -fPIC -shared.
 */
#include <stdint.h>

#if defined(__GNUC__) && !defined(__clang__)
#define WL_FN __attribute__((noipa, used, visibility("default")))
#else
#define WL_FN __attribute__((noinline, used, visibility("default")))
#endif

uint64_t lib_hot(uint64_t n, uint64_t x);

/*
 * Set up a frame in a leaf: GCC omits the frame pointer in leaf functions even with
 * -fno-omit-frame-pointer, and then a frame-pointer call chain taken in the leaf skips its
 * caller.  Asking for the frame address makes the compiler build the frame.
 */
#define LEAF_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

WL_FN uint64_t lib_hot(uint64_t n, uint64_t x)
{
	uint64_t i;

	LEAF_FRAME();
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}
