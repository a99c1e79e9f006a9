/* SPDX-License-Identifier: MIT */
/*
 * mangled: a workload whose functions have C++ (Itanium ABI) mangled names, for checking that
 * reports show them demangled as perf does.  Written in C so that the build needs no C++
 * compiler: each function takes its symbol name from an asm label, the name g++ gives
 *
 *   main -> app::Engine::run(unsigned long) const          _ZNK3app6Engine3runEm
 *        -> app::Engine::operator()(unsigned long)         _ZN3app6EngineclEm
 *           -> app::work<unsigned long>(ul, ul)   ~75%      _ZN3app4workImEET_S1_S1_
 *           -> (anonymous namespace)::helper(ul)  ~25%      _ZN12_GLOBAL__N_16helperEm.isra.0
 *
 * perf report shows these as app::Engine::run, app::Engine::operator(), app::work<unsigned
 * long> (no parameters, no return type) and (anonymous namespace)::helper (no clone suffix).
 *
 * Usage: mangled [MILLISECONDS]   (default 500)
 *
 * Built like demo (-O1 -g -fno-omit-frame-pointer -fno-inline); the leaves run the same loop
 * body 3 * UNIT and UNIT times per call, so the 3:1 split does not depend on the machine.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__GNUC__) && !defined(__clang__)
#define WL_FN __attribute__((noipa, used))
#else
#define WL_FN __attribute__((noinline, used))
#endif

#define UNIT 20000 /* loop iterations of helper per call; work does 3 * UNIT */
#define DEFAULT_MS 500
#define MAX_MS (3600UL * 1000) /* one hour */

uint64_t engine_run(uint64_t x) __asm__("_ZNK3app6Engine3runEm");
uint64_t engine_call(uint64_t x) __asm__("_ZN3app6EngineclEm");
uint64_t work(uint64_t n, uint64_t x) __asm__("_ZN3app4workImEET_S1_S1_");
uint64_t helper(uint64_t n, uint64_t x) __asm__("_ZN12_GLOBAL__N_16helperEm.isra.0");

static volatile uint64_t sink; /* keeps the result, so no call is optimised away */

/* See demo.c: makes GCC set up a frame in a leaf, so frame-pointer chains keep its caller. */
#define LEAF_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

#define STEP(x)                                                                                    \
	do {                                                                                       \
		(x) = (x)*6364136223846793005ULL + 1442695040888963407ULL;                         \
		__asm__ volatile("" : "+r"(x));                                                    \
	} while (0)

WL_FN uint64_t work(uint64_t n, uint64_t x)
{
	uint64_t i;

	LEAF_FRAME();
	for (i = 0; i < n; i++)
		STEP(x);
	return x;
}

WL_FN uint64_t helper(uint64_t n, uint64_t x)
{
	uint64_t i;

	LEAF_FRAME();
	for (i = 0; i < n; i++)
		STEP(x);
	return x;
}

WL_FN uint64_t engine_call(uint64_t x)
{
	x = work(3 * UNIT, x);
	x = helper(UNIT, x);
	__asm__ volatile("" : "+r"(x)); /* no tail call: the frame stays in the call chain */
	return x;
}

WL_FN uint64_t engine_run(uint64_t x)
{
	x = engine_call(x);
	__asm__ volatile("" : "+r"(x));
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
	char *end;

	if (argc > 2) {
		fprintf(stderr, "usage: mangled [MILLISECONDS]\n");
		return 2;
	}
	if (argc == 2) {
		errno = 0;
		ms = strtoul(argv[1], &end, 10);
		if (errno || end == argv[1] || *end || argv[1][0] == '-' || ms > MAX_MS) {
			fprintf(stderr, "mangled: '%s' is not a run time in milliseconds (0..%lu)\n",
				argv[1], MAX_MS);
			return 2;
		}
	}
	deadline = now_ns() + (uint64_t)ms * 1000000u;
	do
		x = engine_run(x);
	while (now_ns() < deadline);
	sink = x;
	return 0;
}
