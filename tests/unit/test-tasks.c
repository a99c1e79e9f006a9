/* SPDX-License-Identifier: MIT */
/*
 * The task table of a recording session (lib/record/prec_tasks.c).  Kernel-format side records
 * (COMM, MMAP2, FORK, EXIT, with a TID+TIME trailer) are built here by hand and noted; the
 * state the table writes is read back with the reader and compared, as "C pid/tid comm" and
 * "M pid start-end pgoff name" lines, with what the records say:
 *  - a mapping cuts away what it overlaps (both sides of a hole kept, the right one's pgoff
 *    moved), an older mapping that comes after a newer one it overlaps is ignored;
 *  - a FORK gives the child its parent's maps and comm; an exec drops the maps older than
 *    it (also when a newer map came before it) and the other threads;
 *  - an exited process stays until the end of the pass after its EXIT's, then goes; a FORK
 *    drained after its EXIT does not bring it back; a thread that exits goes alone;
 *  - a process's maps past twice what /proc showed (plus the slack) are read again from
 *    /proc; seeding from /proc finds this very process with its comm.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "prec_reader.h"
#include "prec_record.h"
#include "prec_tasks.h"
#include "prec_writer.h"
#include "tap.h"

static struct perf_event_attr attr = {
	.type = PERF_TYPE_SOFTWARE,
	.size = sizeof(struct perf_event_attr),
	.config = PERF_COUNT_SW_CPU_CLOCK,
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
	.sample_id_all = 1,
};

#define GHOST 4194400u /* above any pid (PID_MAX_LIMIT is 2^22) */

static unsigned char rec[4096];

/* Header, body (`len` bytes at `body`, padded to 8), then the trailer: pid, tid, time. */
static size_t build(uint32_t type, uint16_t misc, const void *body, size_t len, uint32_t pid,
		    uint32_t tid, uint64_t time)
{
	struct perf_event_header h = { .type = type, .misc = misc };
	size_t n = sizeof(h) + ((len + 7) & ~(size_t)7);

	memset(rec, 0, sizeof(rec));
	memcpy(rec + sizeof(h), body, len);
	memcpy(rec + n, &pid, 4);
	memcpy(rec + n + 4, &tid, 4);
	memcpy(rec + n + 8, &time, 8);
	n += 16;
	h.size = (uint16_t)n;
	memcpy(rec, &h, sizeof(h));
	return n;
}

static void comm(struct prec_tasks *t, uint32_t pid, uint32_t tid, const char *name, bool exec,
		 uint64_t time)
{
	unsigned char b[64] = { 0 };

	memcpy(b, &pid, 4);
	memcpy(b + 4, &tid, 4);
	strcpy((char *)b + 8, name);
	prec_tasks__note(t, rec,
			 build(PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, b,
			       8 + strlen(name) + 1, pid, tid, time));
}

static void mmap2(struct prec_tasks *t, uint32_t pid, uint64_t start, uint64_t end,
		  uint64_t pgoff, const char *name, uint64_t time)
{
	unsigned char b[256] = { 0 };
	uint64_t len = end - start, ino = 7;
	uint32_t prot = 5, flags = 2;

	memcpy(b, &pid, 4);
	memcpy(b + 4, &pid, 4);
	memcpy(b + 8, &start, 8);
	memcpy(b + 16, &len, 8);
	memcpy(b + 24, &pgoff, 8);
	memcpy(b + 40, &ino, 8);
	memcpy(b + 56, &prot, 4);
	memcpy(b + 60, &flags, 4);
	strcpy((char *)b + 64, name);
	prec_tasks__note(t, rec,
			 build(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, b, 64 + strlen(name) + 1,
			       pid, pid, time));
}

static void task(struct prec_tasks *t, bool exit, uint32_t pid, uint32_t ppid, uint32_t tid,
		 uint32_t ptid, uint64_t time)
{
	uint32_t b[6] = { pid, ppid, tid, ptid };

	memcpy(&b[4], &time, 8);
	prec_tasks__note(t, rec,
			 build(exit ? PERF_RECORD_EXIT : PERF_RECORD_FORK, 0, b, sizeof(b), pid,
			       tid, time));
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The table's state as sorted lines of the processes in [lo, hi], joined by " | ".
 * Written through a writer into a file and read back.
 */
static char *state(struct prec_tasks *t, uint32_t lo, uint32_t hi)
{
	struct prec_writer_opts wo = { 0 };
	static char out[8192];
	char *lines[512], path[] = "/tmp/test-tasks-XXXXXX";
	struct prec_reader *r;
	struct prec_writer *w;
	struct prec_record pr;
	uint64_t id = 1;
	size_t n = 0, i;
	int fd = mkstemp(path);

	out[0] = 0;
	if (fd < 0)
		return out;
	unlink(path);
	if (prec_writer__new(fd, &wo, &w) || prec_writer__add_attr(w, &attr, &id, 1) ||
	    prec_writer__end_header(w) || prec_tasks__write(t, w, NULL) || prec_writer__finish(w))
		return strcpy(out, "write failed");
	prec_writer__free(w);
	lseek(fd, 0, SEEK_SET);
	if (prec_reader__open_fd(fd, &r))
		return strcpy(out, "read failed");
	while (n < 512 && prec_reader__next(r, &pr) > 0) {
		struct prec_rec_comm c;
		struct prec_mmap2 m;
		char l[512];

		if (pr.type == PERF_RECORD_COMM && !prec_rec_comm__parse(pr.data, pr.size, &c) &&
		    c.pid >= lo && c.pid <= hi)
			snprintf(l, sizeof(l), "C %u/%u %s", c.pid, c.tid, c.comm);
		else if (pr.type == PERF_RECORD_MMAP2 &&
			 !prec_rec_mmap__parse(pr.data, pr.size, &m) && m.pid >= lo && m.pid <= hi)
			snprintf(l, sizeof(l), "M %u %" PRIx64 "-%" PRIx64 " %" PRIx64 " %s", m.pid,
				 m.addr, m.addr + m.len, m.pgoff, m.filename);
		else
			continue;
		lines[n++] = strdup(l);
	}
	prec_reader__free(r);
	close(fd);
	qsort(lines, n, sizeof(*lines), cmp_lines);
	for (i = 0; i < n; i++) {
		if (i)
			strcat(out, " | ");
		strncat(out, lines[i], sizeof(out) - strlen(out) - 4);
		free(lines[i]);
	}
	return out;
}

static void is_state(struct prec_tasks *t, uint32_t lo, uint32_t hi, const char *want,
		     const char *what)
{
	const char *got = state(t, lo, hi);

	if (!ok(!strcmp(got, want), "%s", what))
		diag("got  %s\n#   want %s", got, want);
}

/* What process `pid` holds after FORK from 100 (or as 100): comm a, `threads` more thread
 * lines, and a's maps with /x cut into /lib/c. */
static const char *like_a(uint32_t pid, const char *threads)
{
	static char b[512];

	snprintf(b, sizeof(b),
		 "C %u/%u a%s | M %u 1000-3000 0 /bin/a | M %u 10000-12000 0 /lib/c | "
		 "M %u 12000-14000 5000 /x | M %u 14000-20000 4000 /lib/c",
		 pid, pid, threads, pid, pid, pid, pid);
	return b;
}

int main(void)
{
	struct prec_sample_layout l;
	struct prec_tasks_stats st;
	struct prec_tasks *t;
	uint32_t self = (uint32_t)getpid();
	uint64_t i;

	prec_sample_layout__init(&l, &attr);
	if (!ok(!prec_tasks__new(&l, CLOCK_MONOTONIC, false, &t), "a table"))
		return done_testing();
	ok(prec_tasks__needs_seed(t), "a new table needs seeding");

	task(t, false, 100, 1, 100, 1, 5);
	comm(t, 100, 100, "a", true, 10);
	mmap2(t, 100, 0x1000, 0x3000, 0, "/bin/a", 11);
	mmap2(t, 100, 0x10000, 0x20000, 0, "/lib/c", 12);
	is_state(t, 100, 100,
		 "C 100/100 a | M 100 1000-3000 0 /bin/a | M 100 10000-20000 0 /lib/c",
		 "FORK, exec COMM, two MMAP2s");

	mmap2(t, 100, 0x12000, 0x14000, 0x5000, "/x", 13);
	is_state(t, 100, 100, like_a(100, ""),
		 "a map inside another cuts it in two, the right part's pgoff moved");
	mmap2(t, 100, 0x11000, 0x13000, 0, "/old", 6);
	is_state(t, 100, 100, like_a(100, ""),
		 "an older map drained after newer ones it overlaps is ignored");

	task(t, false, 101, 100, 101, 100, 20);
	is_state(t, 101, 101, like_a(101, ""),
		 "a forked process has its parent's comm and maps");
	task(t, false, 101, 101, 102, 101, 21); /* a thread */
	mmap2(t, 101, 0x400000, 0x401000, 0, "/bin/b", 31); /* drained before its exec */
	comm(t, 101, 101, "b", true, 30);
	is_state(t, 101, 101, "C 101/101 b | M 101 400000-401000 0 /bin/b",
		 "an exec keeps only newer maps and its own thread");
	mmap2(t, 101, 0x500000, 0x501000, 0, "/bin/a-late", 25);
	is_state(t, 101, 101, "C 101/101 b | M 101 400000-401000 0 /bin/b",
		 "a map older than the exec, drained after it, is ignored");

	task(t, true, 101, 100, 101, 100, 40);
	prec_tasks__end_pass(t);
	is_state(t, 101, 101, "C 101/101 b | M 101 400000-401000 0 /bin/b",
		 "an exited process stays to the end of the next pass");
	prec_tasks__end_pass(t);
	is_state(t, 101, 101, "", "then it goes");

	task(t, true, 103, 100, 103, 100, 50);
	task(t, false, 103, 100, 103, 100, 45);
	prec_tasks__end_pass(t);
	prec_tasks__end_pass(t);
	is_state(t, 103, 103, "", "a FORK drained after its EXIT does not bring the process back");

	task(t, false, 100, 100, 105, 100, 60);
	comm(t, 100, 105, "worker", false, 61);
	is_state(t, 100, 100, like_a(100, " | C 100/105 worker"),
		 "a new thread, renamed");
	task(t, true, 100, 100, 105, 100, 70);
	prec_tasks__end_pass(t);
	prec_tasks__end_pass(t);
	is_state(t, 100, 100, like_a(100, ""),
		 "a thread that exits goes alone");

	task(t, false, 101, 100, 101, 100, 80);
	is_state(t, 101, 101, like_a(101, ""),
		 "a pid used again is a new process");
	/* exec, exec again on another CPU: that CPU's ring is drained first */
	comm(t, 101, 101, "python3", true, 90);
	mmap2(t, 101, 0x600000, 0x601000, 0, "/bin/python3", 91);
	comm(t, 101, 101, "bash", true, 85);
	mmap2(t, 101, 0x700000, 0x701000, 0, "/bin/bash", 86);
	is_state(t, 101, 101, "C 101/101 python3 | M 101 600000-601000 0 /bin/python3",
		 "an older exec drained after a newer one names nothing and maps nothing");
	comm(t, 101, 101, "py-worker", false, 95);
	comm(t, 101, 101, "py-old", false, 92);
	is_state(t, 101, 101, "C 101/101 py-worker | M 101 600000-601000 0 /bin/python3",
		 "an older rename drained after a newer one does not rename");

	/* maps never unmapped pile up to the bound, then /proc is read again */
	for (i = 0; i <= PREC_TASKS_SLACK; i++)
		mmap2(t, self, 0x7f0000000000ULL + i * 0x2000, 0x7f0000001000ULL + i * 0x2000, 0,
		      "/tmp/gone", 100 + i);
	prec_tasks__get_stats(t, &st);
	is_u64(st.resyncs, 1, "past the bound, this process's maps are read from /proc");
	ok(st.maps < 2 * PREC_TASKS_SLACK, "and the table holds fewer (%" PRIu64 ")", st.maps);
	ok(!strstr(state(t, self, self), "/tmp/gone"), "none of the piled-up maps is left");

	ok(!prec_tasks__seed_process(t, (pid_t)self), "seeding this process from /proc");
	ok(!prec_tasks__needs_seed(t), "a seeded table needs no seeding");
	ok(strstr(state(t, self, self), "C ") && strstr(state(t, self, self), "test-tasks"),
	   "it has this process's comm and maps: %.100s", state(t, self, self));
	prec_tasks__set_stale(t);
	ok(prec_tasks__needs_seed(t), "a stale table needs seeding again");

	/* a process /proc does not have (pids stop below 2^22): gone, its EXIT not drained */
	task(t, false, GHOST, 100, GHOST, 100, 200);
	ok(!prec_tasks__seed_all(t), "seeding every process from /proc");
	ok(strstr(state(t, self, self), "test-tasks") != NULL, "this process is there");
	is_state(t, GHOST, GHOST, "C 4194400/4194400 a | M 4194400 1000-3000 0 /bin/a | "
		 "M 4194400 10000-12000 0 /lib/c | M 4194400 12000-14000 5000 /x | "
		 "M 4194400 14000-20000 4000 /lib/c",
		 "a process /proc no longer shows stays, for its samples in the rings");
	mmap2(t, GHOST, 0x1000, 0x2000, 0, "/late", 250);
	task(t, true, GHOST, 100, GHOST, 100, 260);
	ok(!strstr(state(t, GHOST, GHOST), "/late"),
	   "its late MMAP2 and EXIT, older than the seeding, do not bring it back");
	prec_tasks__end_pass(t);
	prec_tasks__end_pass(t);
	is_state(t, GHOST, GHOST, "", "and it goes after the next pass");
	prec_tasks__free(t);
	return done_testing();
}
