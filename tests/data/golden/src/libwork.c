/* SPDX-License-Identifier: MIT */
/*
 * libwork: a workload whose hot function lives in a shared library.
 *
 *   main -> lib_hot      (in libhot.so)   about 60% of the CPU time
 *   main -> local_work   (in libwork)     about 40%
 *
 * Usage: libwork [MILLISECONDS [LIBRARY]]   (default 500 ms, LIBRARY = libhot.so in the
 *                                            directory of the libwork executable)
 *
 * The library is loaded with dlopen(3) by path, so the test needs no rpath or
 * LD_LIBRARY_PATH, and its MMAP2 record arrives while the recording runs.  Each round runs
 * 3 * UNIT loop steps in lib_hot and 2 * UNIT in local_work; both run the same dependent
 * multiply-add, so the 60:40 split does not depend on the CPU or the compiler.  The rounds
 * repeat until the process has used MILLISECONDS of CPU time (CLOCK_PROCESS_CPUTIME_ID, read
 * once per round, ~0.1 ms), so a profile gets the same number of samples on a busy machine.
 *
 * Built like demo (-O1 -g -fno-omit-frame-pointer -fno-inline); libhot.c is built with
 * the same flags plus -fPIC -shared.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__) && !defined(__clang__)
#define WL_FN __attribute__((noipa, used))
#else
#define WL_FN __attribute__((noinline, used))
#endif

#define UNIT 20000 /* lib_hot runs 3 * UNIT steps per round, local_work 2 * UNIT */
#define DEFAULT_MS 500
#define MAX_MS (3600UL * 1000) /* one hour */

typedef uint64_t lib_hot_fn(uint64_t n, uint64_t x);

uint64_t local_work(uint64_t n, uint64_t x);

static volatile uint64_t sink; /* keeps the result, so no call is optimised away */

/* See demo.c: makes GCC set up a frame in a leaf, so frame-pointer chains keep its caller. */
#define LEAF_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

WL_FN uint64_t local_work(uint64_t n, uint64_t x)
{
	uint64_t i;

	LEAF_FRAME();
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* libhot.so in the directory of this executable, into buf. */
static int default_library(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n < 0)
		return -errno;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = 0;
	if ((size_t)snprintf(buf, len, "%s/libhot.so", exe) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long ms = DEFAULT_MS;
	char libpath[PATH_MAX + 16];
	const char *lib = libpath;
	lib_hot_fn *lib_hot;
	uint64_t deadline, x = 1;
	void *h;
	int err;

	if (argc > 3) {
		fprintf(stderr, "usage: libwork [MILLISECONDS [LIBRARY]]\n");
		return 2;
	}
	if (argc >= 2) {
		char *end;

		errno = 0;
		ms = strtoul(argv[1], &end, 10);
		if (errno || end == argv[1] || *end || argv[1][0] == '-' || ms > MAX_MS) {
			fprintf(stderr, "libwork: '%s' is not a run time in milliseconds (0..%lu)\n",
				argv[1], MAX_MS);
			return 2;
		}
	}
	if (argc == 3) {
		lib = argv[2];
	} else {
		err = default_library(libpath, sizeof(libpath));
		if (err) {
			fprintf(stderr, "libwork: cannot find my own directory: %s\n",
				strerror(-err));
			return 1;
		}
	}
	h = dlopen(lib, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "libwork: cannot load %s: %s\n", lib, dlerror());
		return 1;
	}
	lib_hot = (lib_hot_fn *)dlsym(h, "lib_hot");
	if (!lib_hot) {
		fprintf(stderr, "libwork: %s has no lib_hot: %s\n", lib, dlerror());
		dlclose(h);
		return 1;
	}

	deadline = cpu_ns() + (uint64_t)ms * 1000000u;
	do {
		x = lib_hot(3 * UNIT, x);
		x = local_work(2 * UNIT, x);
	} while (cpu_ns() < deadline);
	sink = x;
	dlclose(h);
	return 0;
}
