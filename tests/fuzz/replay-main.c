/* SPDX-License-Identifier: MIT */
/*
 * Replays a fuzzing corpus through LLVMFuzzerTestOneInput without libFuzzer, so `make check`
 * runs every saved input (seeds and past crashes) under whatever sanitizers the build has.
 * Arguments are files or directories; without any, it replays
 * $srcdir/tests/fuzz/corpus/reader ($srcdir from the environment, "." by default).  Each
 * input is copied into a heap block of exactly its size, so reads past its end are caught.
 * Exits 0 after printing how many inputs ran; 1 if none could be read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path, size_t *count)
{
	struct stat st;
	unsigned char *buf;
	size_t done = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "replay-reader: cannot read %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return -1;
	}
	while (done < (size_t)st.st_size) {
		n = read(fd, buf + done, (size_t)st.st_size - done);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(fd);
	LLVMFuzzerTestOneInput(buf, done);
	free(buf);
	(*count)++;
	return 0;
}

static int replay(const char *path, size_t *count)
{
	struct dirent **names;
	struct stat st;
	int i, n, err = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "replay-reader: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path, count);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay-reader: cannot list %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		char sub[4096];

		if (names[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path, names[i]->d_name);
			if (replay(sub, count))
				err = -1;
		}
		free(names[i]);
	}
	free(names);
	return err;
}

int main(int argc, char **argv)
{
	const char *srcdir = getenv("srcdir");
	char dir[4096];
	size_t count = 0;
	int i, err = 0;

	if (argc > 1) {
		for (i = 1; i < argc; i++)
			if (replay(argv[i], &count))
				err = -1;
	} else {
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/reader",
			 srcdir && srcdir[0] ? srcdir : ".");
		err = replay(dir, &count);
	}
	printf("replay-reader: %zu inputs replayed\n", count);
	return err || count == 0 ? 1 : 0;
}
