/* SPDX-License-Identifier: MIT */
/*
 * deep: a workload with a deep call chain, for checking that call chains are complete.
 *
 *   main -> descend -> descend -> ... (DEPTH calls of descend) -> deep_leaf
 *
 * Usage: deep [MILLISECONDS [DEPTH]]   (default 500 ms, DEPTH 40, at most 100)
 *
 * main calls descend(DEPTH) until MILLISECONDS of wall-clock time have passed; descend(n)
 * calls itself with n - 1 until n is 1, and that call runs deep_leaf, where nearly all the
 * time goes.  So a sample in deep_leaf has the call chain deep_leaf, DEPTH x descend, main,
 * then the C library's start-up frames.  No call is a tail call (the asm after each call
 * uses its result), so every frame stays on the stack.
 *
 * Built like demo (-O1 -g -fno-omit-frame-pointer -fno-inline); the functions are external
 * and not inlined or cloned, so their names stay in the symbol table as written.
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

#define LEAF_STEPS 50000 /* loop iterations per call of deep_leaf */
#define DEFAULT_MS 500
#define DEFAULT_DEPTH 40
#define MAX_DEPTH 100
#define MAX_MS (3600UL * 1000) /* one hour */

uint64_t deep_leaf(uint64_t x);
uint64_t descend(unsigned int n, uint64_t x);

static volatile uint64_t sink; /* keeps the result, so no call is optimised away */

/* See demo.c: makes GCC set up a frame in a leaf, so frame-pointer chains keep its caller. */
#define LEAF_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

WL_FN uint64_t deep_leaf(uint64_t x)
{
	uint64_t i;

	LEAF_FRAME();
	for (i = 0; i < LEAF_STEPS; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

WL_FN uint64_t descend(unsigned int n, uint64_t x)
{
	if (n <= 1)
		x = deep_leaf(x);
	else
		x = descend(n - 1, x);
	__asm__ volatile("" : "+r"(x)); /* no tail call: this frame stays in the chain */
	return x;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int parse_ul(const char *s, unsigned long max, unsigned long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoul(s, &end, 10);
	return errno || end == s || *end || s[0] == '-' || *ret > max ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long ms = DEFAULT_MS, depth = DEFAULT_DEPTH;
	uint64_t deadline, x = 1;

	if (argc > 3) {
		fprintf(stderr, "usage: deep [MILLISECONDS [DEPTH]]\n");
		return 2;
	}
	if (argc >= 2 && parse_ul(argv[1], MAX_MS, &ms)) {
		fprintf(stderr, "deep: '%s' is not a run time in milliseconds (0..%lu)\n", argv[1],
			MAX_MS);
		return 2;
	}
	if (argc == 3 && (parse_ul(argv[2], MAX_DEPTH, &depth) || depth < 1)) {
		fprintf(stderr, "deep: '%s' is not a depth (1..%d)\n", argv[2], MAX_DEPTH);
		return 2;
	}

	deadline = now_ns() + (uint64_t)ms * 1000000u;
	do
		x = descend((unsigned int)depth, x);
	while (now_ns() < deadline);
	sink = x;
	return 0;
}
