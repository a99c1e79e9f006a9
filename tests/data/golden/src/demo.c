/* SPDX-License-Identifier: MIT */
/*
 * demo: the bundled workload with a known profile.
 *
 *   main -> outer -> hot_a   about 75% of the CPU time
 *                 -> hot_b   about 25%
 *
 * Usage: demo [MILLISECONDS]   (default 500)
 *
 * The program is single-threaded and CPU-bound: it calls outer() until MILLISECONDS of
 * wall-clock time have passed.  Each call of outer() runs the same loop body 3 * UNIT times in
 * hot_a and UNIT times in hot_b; the body is one dependent multiply-add, so both leaves run
 * at the same speed and the 3:1 split does not depend on the CPU or the compiler.  The work
 * (and so the profile) is deterministic; only the number of outer() calls depends on the
 * speed of the machine.  The time check costs one vDSO call per ~100 us of work.
 *
 * The leaves are external, not inlined and not cloned (noipa where the compiler knows it), so
 * their names stay in the symbol table as written; the build adds -O1 -g
 * -fno-omit-frame-pointer -fno-inline so that frame-pointer call chains are complete.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__GNUC__) && !defined(__clang__)
#define DEMO_LEAF __attribute__((noipa, used))
#else
#define DEMO_LEAF __attribute__((noinline, used))
#endif

#define UNIT 20000 /* loop iterations of hot_b per outer() call; hot_a does 3 * UNIT */
#define DEFAULT_MS 500
#define MAX_MS (3600UL * 1000) /* one hour */

uint64_t hot_a(uint64_t n, uint64_t x);
uint64_t hot_b(uint64_t n, uint64_t x);
uint64_t outer(uint64_t x);

static volatile uint64_t sink; /* keeps the result, so no call is optimised away */

/*
 * Set up a frame in a leaf: GCC omits the frame pointer in leaf functions even with
 * -fno-omit-frame-pointer, and then a frame-pointer call chain taken in the leaf skips its
 * caller.  Asking for the frame address makes the compiler build the frame.
 */
#define LEAF_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

/* One step of a 64-bit linear congruential generator; the asm hides x from the optimiser. */
#define STEP(x)                                                                                    \
	do {                                                                                       \
		(x) = (x)*6364136223846793005ULL + 1442695040888963407ULL;                         \
		__asm__ volatile("" : "+r"(x));                                                    \
	} while (0)

DEMO_LEAF uint64_t hot_a(uint64_t n, uint64_t x)
{
	uint64_t i;

	LEAF_FRAME();
	for (i = 0; i < n; i++)
		STEP(x);
	return x;
}

DEMO_LEAF uint64_t hot_b(uint64_t n, uint64_t x)
{
	uint64_t i;

	LEAF_FRAME();
	for (i = 0; i < n; i++)
		STEP(x);
	return x;
}

DEMO_LEAF uint64_t outer(uint64_t x)
{
	x = hot_a(3 * UNIT, x);
	x = hot_b(UNIT, x);
	__asm__ volatile("" : "+r"(x)); /* no tail call: outer stays in the call chain */
	return x;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long ms = DEFAULT_MS;
	uint64_t deadline, x = 1;

	if (argc > 2) {
		fprintf(stderr, "usage: demo [MILLISECONDS]\n");
		return 2;
	}
	if (argc == 2) {
		char *end;

		errno = 0;
		ms = strtoul(argv[1], &end, 10);
		if (errno || end == argv[1] || *end || argv[1][0] == '-' || ms > MAX_MS) {
			fprintf(stderr, "demo: '%s' is not a run time in milliseconds (0..%lu)\n",
				argv[1], MAX_MS);
			return 2;
		}
	}

	deadline = now_ns() + (uint64_t)ms * 1000000u;
	do
		x = outer(x);
	while (now_ns() < deadline);
	sink = x;
	return 0;
}
