/* SPDX-License-Identifier: MIT */
/*
 * segmark: a short-lived process that ends right after a daemon's segment switch, for checking
 * that the samples it leaves in the rings find its process in the next segment.
 *
 *   main -> mark_spin      CPU time until FILE is gone, then exit at once
 *
 * Usage: segmark FILE
 *
 * FILE is the daemon's live segment (NAME.data.partial): the daemon renames it when it closes
 * the segment, after its last drain.  segmark spins in mark_spin, looking for FILE every few
 * microseconds, and exits as soon as it is gone: its last samples are still in the rings
 * while the daemon begins the next segment, and the process may be gone before the daemon
 * writes the new segment's state.  Exits 0 once FILE is gone, 1 if FILE is not there at the
 * start or after an hour.
 *
 * Built like demo (-O1 -g -fno-omit-frame-pointer -fno-inline).
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__) && !defined(__clang__)
#define WL_FN __attribute__((noipa, used))
#else
#define WL_FN __attribute__((noinline, used))
#endif

#define CHUNK 5000 /* loop iterations between two looks at FILE (a few microseconds) */
#define MAX_S 3600 /* give up after an hour */

int mark_spin(const char *file, uint64_t x);

static volatile uint64_t sink; /* keeps the result, so the loop is not optimised away */

/* Spin until `file` is gone; 0, or 1 after MAX_S seconds. */
WL_FN int mark_spin(const char *file, uint64_t x)
{
	time_t end = time(NULL) + MAX_S;
	uint64_t i;

	while (!access(file, F_OK)) {
		for (i = 0; i < CHUNK; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			__asm__ volatile("" : "+r"(x));
		}
		sink = x;
		if (time(NULL) > end)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: segmark FILE\n");
		return 2;
	}
	if (access(argv[1], F_OK)) {
		fprintf(stderr, "segmark: %s is not there\n", argv[1]);
		return 1;
	}
	return mark_spin(argv[1], 1);
}
