/* SPDX-License-Identifier: MIT */
/*
 * forkexec: a workload that forks a child which execs another program, for checking that a
 * recorder follows fork and exec.
 *
 *   parent (comm "forkexec"):  main -> parent_work      MILLISECONDS of CPU time
 *   child  (comm of PROGRAM):  whatever PROGRAM does     (e.g. demo MILLISECONDS)
 *
 * Usage: forkexec MILLISECONDS PROGRAM [ARGS...]
 *
 * The parent forks, the child execs PROGRAM with ARGS (PATH is searched), the parent spins
 * in parent_work for MILLISECONDS of wall-clock time and then waits for the child.  With
 * `forkexec 1000 demo 1000` on two free CPUs, parent_work gets about half of the samples and
 * demo's hot_a and hot_b the other half (3:1).  The exit status is the child's (126/127 when
 * PROGRAM cannot be run, 128+N when a signal killed it).
 *
 * Built like demo (-O1 -g -fno-omit-frame-pointer -fno-inline).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__) && !defined(__clang__)
#define WL_FN __attribute__((noipa, used))
#else
#define WL_FN __attribute__((noinline, used))
#endif

#define CHUNK 20000 /* loop iterations between two reads of the clock */
#define MAX_MS (3600UL * 1000) /* one hour */

uint64_t parent_work(uint64_t ms, uint64_t x);

static volatile uint64_t sink; /* keeps the result, so the loop is not optimised away */

/* One step of a 64-bit linear congruential generator; the asm hides x from the optimiser. */
#define STEP(x)                                                                                    \
	do {                                                                                       \
		(x) = (x) * 6364136223846793005ULL + 1442695040888963407ULL;                       \
		__asm__ volatile("" : "+r"(x));                                                    \
	} while (0)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

WL_FN uint64_t parent_work(uint64_t ms, uint64_t x)
{
	uint64_t deadline = now_ns() + ms * 1000000u, i;

	do
		for (i = 0; i < CHUNK; i++)
			STEP(x);
	while (now_ns() < deadline);
	return x;
}

int main(int argc, char **argv)
{
	unsigned long ms;
	char *end;
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: forkexec MILLISECONDS PROGRAM [ARGS...]\n");
		return 2;
	}
	errno = 0;
	ms = strtoul(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || argv[1][0] == '-' || ms > MAX_MS) {
		fprintf(stderr, "forkexec: '%s' is not a run time in milliseconds (0..%lu)\n",
			argv[1], MAX_MS);
		return 2;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "forkexec: cannot fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "forkexec: cannot run '%s': %s\n", argv[2], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	sink = parent_work(ms, 1);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "forkexec: cannot wait for the child: %s\n", strerror(errno));
			return 1;
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}
