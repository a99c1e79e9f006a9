/* SPDX-License-Identifier: MIT */
/*
 * Fixed-work CPU-bound benchmark workload: THREADS threads each run ITERATIONS steps of a
 * dependent multiply-add chain, through a few call levels so that -g has chains to walk.
 * Usage: spin THREADS MILLIONS_OF_ITERATIONS.  CPU time, not wall time, is what a benchmark
 * compares: the work is the same whatever else the machine does.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t iterations;
static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t leaf(uint64_t x, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) static uint64_t middle(uint64_t x, uint64_t n)
{
	return leaf(x, n) + 1;
}

static void *worker(void *arg)
{
	uint64_t x = (uint64_t)(uintptr_t)arg, done;

	for (done = 0; done < iterations; done += 100000)
		x = middle(x, 100000);
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2, i;
	pthread_t t[64];

	iterations = (argc > 2 ? strtoull(argv[2], NULL, 10) : 500) * 1000000ULL;
	if (threads < 1 || threads > 64) {
		fprintf(stderr, "spin: THREADS must be 1..64\n");
		return 2;
	}
	for (i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	for (i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
