/* SPDX-License-Identifier: MIT */
/*
 * threads: a two-thread workload with a known profile.
 *
 *   thread_a (in a thread named "thread_a")   about 50% of the CPU time
 *   thread_b (in a thread named "thread_b")   about 50%
 *
 * Usage: threads [MILLISECONDS [LEADER_MILLISECONDS]]   (default 500)
 *
 * main starts two threads and waits for them; given LEADER_MILLISECONDS, it sleeps that long
 * instead and leaves with pthread_exit(), so that the process lives on in its two threads.  Each thread spins in its own function until
 * it has used MILLISECONDS of its own CPU time (CLOCK_THREAD_CPUTIME_ID), so the 50:50 split
 * holds however the threads are scheduled; with two free CPUs the run takes MILLISECONDS of
 * wall-clock time.  The loop body is one dependent multiply-add; the CPU clock (a system
 * call) is read once per ~0.2 ms of work.  Each thread names itself (pthread_setname_np)
 * after its function, so a recorder's COMM records can be checked too.
 *
 * Built like demo (-O1 -g -fno-omit-frame-pointer -fno-inline); the spinning functions are
 * external and not inlined, so their names stay in the symbol table as written.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np */
#endif
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GNUC__) && !defined(__clang__)
#define WL_FN __attribute__((noipa, used))
#else
#define WL_FN __attribute__((noinline, used))
#endif

#define CHUNK 200000 /* loop iterations (~0.2 ms) between two reads of the CPU clock */
#define DEFAULT_MS 500
#define MAX_MS (3600UL * 1000) /* one hour */

void *thread_a(void *arg);
void *thread_b(void *arg);

static volatile uint64_t sink; /* keeps the results, so no loop is optimised away */

/* One step of a 64-bit linear congruential generator; the asm hides x from the optimiser. */
#define STEP(x)                                                                                    \
	do {                                                                                       \
		(x) = (x) * 6364136223846793005ULL + 1442695040888963407ULL;                       \
		__asm__ volatile("" : "+r"(x));                                                    \
	} while (0)

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Both thread functions run the same loop; only their names differ. */
WL_FN void *thread_a(void *arg)
{
	uint64_t budget = *(const uint64_t *)arg, x = 1, i;
	uint64_t end = thread_cpu_ns() + budget;

	pthread_setname_np(pthread_self(), "thread_a");
	do
		for (i = 0; i < CHUNK; i++)
			STEP(x);
	while (thread_cpu_ns() < end);
	sink = x;
	return NULL;
}

WL_FN void *thread_b(void *arg)
{
	uint64_t budget = *(const uint64_t *)arg, x = 2, i;
	uint64_t end = thread_cpu_ns() + budget;

	pthread_setname_np(pthread_self(), "thread_b");
	do
		for (i = 0; i < CHUNK; i++)
			STEP(x);
	while (thread_cpu_ns() < end);
	sink = x;
	return NULL;
}

static int parse_ms(const char *arg, unsigned long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || *ret > MAX_MS) {
		fprintf(stderr, "threads: '%s' is not a time in milliseconds (0..%lu)\n", arg,
			MAX_MS);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long ms = DEFAULT_MS, leader_ms = 0;
	uint64_t budget;
	pthread_t ta, tb;
	int err;

	if (argc > 3) {
		fprintf(stderr, "usage: threads [MILLISECONDS [LEADER_MILLISECONDS]]\n");
		return 2;
	}
	if (argc >= 2 && parse_ms(argv[1], &ms))
		return 2;
	if (argc == 3 && parse_ms(argv[2], &leader_ms))
		return 2;
	budget = (uint64_t)ms * 1000000u;
	err = pthread_create(&ta, NULL, thread_a, &budget);
	if (err) {
		fprintf(stderr, "threads: cannot create a thread: %s\n", strerror(err));
		return 1;
	}
	err = pthread_create(&tb, NULL, thread_b, &budget);
	if (err) {
		fprintf(stderr, "threads: cannot create a thread: %s\n", strerror(err));
		pthread_join(ta, NULL);
		return 1;
	}
	if (argc == 3) {
		/* the leader leaves, the process lives on in its threads */
		struct timespec ts = { (time_t)(leader_ms / 1000),
				       (long)(leader_ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		pthread_exit(NULL);
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	return 0;
}
