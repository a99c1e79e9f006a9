/* SPDX-License-Identifier: MIT */
/*
 * lib/state: threads and maps replayed from hand-built MMAP2, COMM and FORK records, and the
 * per-address-space generation the reporter's call-chain cache trusts: it must change when
 * the maps that resolve a process's addresses change (its own mmap, exec, the fork that
 * fills it, a kernel map) and must not change for records about other processes.
 */
#include <linux/perf_event.h>

#include "prec_machine.h"
#include "tap.h"

static unsigned char rec[256];

static void put32(size_t off, uint32_t v)
{
	memcpy(rec + off, &v, 4);
}

static void put64(size_t off, uint64_t v)
{
	memcpy(rec + off, &v, 8);
}

static size_t header(uint32_t type, size_t size)
{
	struct perf_event_header h = { .type = type, .misc = 0, .size = (uint16_t)size };

	memset(rec, 0, sizeof(rec));
	memcpy(rec, &h, sizeof(h));
	return size;
}

static int mmap2(struct prec_machine *m, uint32_t pid, uint64_t addr, uint64_t len,
		 const char *path)
{
	size_t size = header(PERF_RECORD_MMAP2, 72 + ((strlen(path) + 8) & ~(size_t)7));

	put32(8, pid);
	put32(12, pid);
	put64(16, addr);
	put64(24, len);
	put64(32, 0);
	put32(64, 5); /* r-x */
	strcpy((char *)rec + 72, path);
	return prec_machine__process(m, PERF_RECORD_MMAP2, rec, size);
}

static int comm(struct prec_machine *m, uint32_t pid, const char *name, bool exec)
{
	size_t size = header(PERF_RECORD_COMM, 16 + ((strlen(name) + 8) & ~(size_t)7));
	uint16_t misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;

	memcpy(rec + 4, &misc, 2); /* perf_event_header.misc */
	put32(8, pid);
	put32(12, pid);
	strcpy((char *)rec + 16, name);
	return prec_machine__process(m, PERF_RECORD_COMM, rec, size);
}

static int fork_rec(struct prec_machine *m, uint32_t pid, uint32_t ppid)
{
	size_t size = header(PERF_RECORD_FORK, 40);

	put32(8, pid);
	put32(12, ppid);
	put32(16, pid);
	put32(20, ppid);
	return prec_machine__process(m, PERF_RECORD_FORK, rec, size);
}

/* The MMAP2 record in rec[] (size bytes), moved to `addr`, processed with `misc`: its map. */
static struct prec_map *remap(struct prec_machine *m, struct prec_thread *t, size_t size,
			      uint64_t addr, uint16_t misc)
{
	memcpy(rec + 4, &misc, 2); /* perf_event_header.misc */
	put64(16, addr);
	if (prec_machine__process(m, PERF_RECORD_MMAP2, rec, size))
		return NULL;
	return t ? prec_mspace__find(t->ms, addr) : NULL;
}

/*
 * MMAP2 records' file identity: device, inode and generation in inode form; a build-id when
 * flagged; and the flag over device and inode that a kernel bug writes (a "size" above 20 or
 * nonzero reserved bytes), read as device and inode.
 */
static void test_identity(void)
{
	const uint16_t bid = PERF_RECORD_MISC_MMAP_BUILD_ID;
	struct prec_machine *m;
	struct prec_thread *t;
	struct prec_map *map;
	size_t size;

	if (!ok(prec_machine__new(&m) == 0, "identity: machine created"))
		return;
	t = prec_machine__thread(m, 500, 500);
	size = header(PERF_RECORD_MMAP2, 72 + 16);
	put32(8, 500);
	put32(12, 500);
	put64(24, 0x1000);
	put32(40, 254); /* fe:03 */
	put32(44, 3);
	put64(48, 123456);
	put64(56, 0xdeadbeef);
	strcpy((char *)rec + 72, "/bin/id");
	map = remap(m, t, size, 0x400000, 0);
	ok(map && map->maj == 254 && map->min == 3 && map->ino == 123456 &&
	       map->ino_gen == 0xdeadbeef && !map->build_id,
	   "identity: inode form: device, inode and generation kept");

	map = remap(m, t, size, 0x500000, bid);
	ok(map && !map->build_id && map->maj == 254 && map->ino == 123456,
	   "identity: build-id flag over device 254 (size byte 254): device and inode");

	put32(40, 259); /* nvme: size byte 3, reserved byte 1 */
	map = remap(m, t, size, 0x600000, bid);
	ok(map && !map->build_id && map->maj == 259 && map->ino == 123456,
	   "identity: build-id flag over device 259 (reserved byte 1): device and inode");

	memset(rec + 40, 0, 24);
	rec[40] = 20;
	memset(rec + 44, 0xab, 20);
	map = remap(m, t, size, 0x700000, bid);
	ok(map && map->build_id && map->build_id->len == 20 && map->build_id->id[19] == 0xab &&
	       !map->ino,
	   "identity: a real build-id record: its build-id, no inode");
	prec_machine__free(m);
}

int main(void)
{
	struct prec_machine *m;
	struct prec_thread *a, *b, *c;
	struct prec_map *map;
	uint64_t ga, gb, gc;

	if (!ok(prec_machine__new(&m) == 0, "machine created"))
		return done_testing();
	a = prec_machine__thread(m, 100, 100);
	b = prec_machine__thread(m, 200, 200);
	ok(a && b && a->ms != b->ms, "two processes, two address spaces");

	ok(mmap2(m, 100, 0x400000, 0x1000, "/bin/a") == 0, "mmap2 of pid 100");
	map = prec_mspace__find(a->ms, 0x400800);
	ok(map && !strcmp(map->path, "/bin/a"), "pid 100 resolves its map");
	ok(!prec_mspace__find(b->ms, 0x400800), "pid 200 does not");

	ga = prec_machine__generation(m, a->ms);
	gb = prec_machine__generation(m, b->ms);
	ok(mmap2(m, 200, 0x500000, 0x1000, "/bin/b") == 0 &&
		   prec_machine__generation(m, a->ms) == ga,
	   "a map of another process leaves the generation of pid 100 alone");
	ok(prec_machine__generation(m, b->ms) != gb, "and changes that of pid 200");
	ok(comm(m, 200, "b-renamed", false) == 0 && fork_rec(m, 201, 200) == 0 &&
		   prec_machine__generation(m, a->ms) == ga,
	   "COMM and FORK of other processes leave it alone too");

	ga = prec_machine__generation(m, a->ms);
	ok(mmap2(m, 100, 0x600000, 0x1000, "/lib/x.so") == 0 &&
		   prec_machine__generation(m, a->ms) != ga,
	   "a new map of its own changes it");

	ga = prec_machine__generation(m, a->ms);
	ok(comm(m, 100, "a", false) == 0 && prec_machine__generation(m, a->ms) == ga,
	   "a COMM without exec does not change the maps");
	ok(comm(m, 100, "a2", true) == 0 && prec_machine__generation(m, a->ms) != ga &&
		   a->ms->nr == 0,
	   "exec changes it and empties the maps");
	ok(prec_mspace__find(a->ms, 0x400800) && !strcmp(prec_mspace__find(a->ms, 0x400800)->path,
							   "/bin/a"),
	   "exec: the old image's maps still resolve (chains sampled inside execve)");
	ok(mmap2(m, 100, 0x400000, 0x1000, "/bin/a2") == 0 &&
		   !strcmp(prec_mspace__find(a->ms, 0x400800)->path, "/bin/a2"),
	   "exec: the new image's maps come first");
	ga = prec_machine__generation(m, a->ms);
	prec_machine__user_seen(m, a->ms);
	ok(prec_machine__generation(m, a->ms) != ga && !prec_mspace__find(a->ms, 0x600800),
	   "exec: once seen in user mode, the old maps are gone");
	ga = prec_machine__generation(m, a->ms);
	prec_machine__user_seen(m, a->ms);
	ok(prec_machine__generation(m, a->ms) == ga, "exec: seen in user mode again: no change");

	ga = prec_machine__generation(m, a->ms);
	gb = prec_machine__generation(m, b->ms);
	ok(mmap2(m, UINT32_MAX, 0xffffffff81000000ULL, 0x1000000, "[kernel.kallsyms]_text") == 0 &&
		   prec_machine__generation(m, a->ms) != ga &&
		   prec_machine__generation(m, b->ms) != gb,
	   "a kernel map changes every process's generation");

	/* a sample of pid 301 seen before its FORK record: an empty space, cached as such */
	c = prec_machine__thread(m, 301, 301);
	gc = c ? prec_machine__generation(m, c->ms) : 0;
	ok(c && !prec_mspace__find(c->ms, 0x700010), "pid 301 before its fork: no maps");
	ok(mmap2(m, 300, 0x700000, 0x1000, "/bin/c") == 0 && fork_rec(m, 301, 300) == 0,
	   "pid 301 forked from 300");
	map = c ? prec_mspace__find(c->ms, 0x700010) : NULL;
	ok(map && !strcmp(map->path, "/bin/c"), "the child inherits the parent's maps");
	ok(prec_machine__generation(m, c->ms) != gc, "and its generation changed with them");
	gc = prec_machine__generation(m, c->ms);
	ok(mmap2(m, 300, 0x710000, 0x1000, "/bin/c2") == 0 &&
		   prec_machine__generation(m, c->ms) == gc,
	   "a later map of the parent leaves the child's generation alone");
	/* the two share one map array since the fork: each change is the changer's alone */
	{
		struct prec_thread *p = prec_machine__thread(m, 300, 300);

		ok(p && !prec_mspace__find(c->ms, 0x710010) && prec_mspace__find(p->ms, 0x710010),
		   "the parent's map after the fork is not the child's");
		ok(mmap2(m, 301, 0x720000, 0x1000, "/bin/c3") == 0 &&
			   prec_mspace__find(c->ms, 0x720010) && p &&
			   !prec_mspace__find(p->ms, 0x720010),
		   "nor the child's the parent's");
		ok(mmap2(m, 301, 0x700000, 0x800, "/bin/d") == 0 && p &&
			   !strcmp(prec_mspace__find(c->ms, 0x700010)->path, "/bin/d") &&
			   !strcmp(prec_mspace__find(p->ms, 0x700010)->path, "/bin/c") &&
			   !strcmp(prec_mspace__find(c->ms, 0x700810)->path, "/bin/c"),
		   "a child's map over an inherited one cuts its own copy only");
		ok(fork_rec(m, 302, 301) == 0 && comm(m, 301, "c-exec", true) == 0 &&
			   !strcmp(prec_mspace__find(prec_machine__thread(m, 302, 302)->ms, 0x720010)
					   ->path,
				   "/bin/c3"),
		   "an exec of the parent leaves a grandchild's shared maps alone");
	}

	prec_machine__free(m);
	test_identity();
	return done_testing();
}
