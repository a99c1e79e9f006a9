/* SPDX-License-Identifier: MIT */
/*
 * Tests of the build-id reader and cache (lib/perf/prec_buildid.c).
 *
 * Reader: the linker's note in tests/workloads/demo-bid (linked with a build-id given on the
 * command line, BID_HEX below), and hand-made ELF files: a note of 8 bytes in a PT_NOTE
 * segment, in a SHT_NOTE section only, no note, a note longer than 20 bytes, notes cut short
 * or with absurd sizes (none, and no crash), a file that is not ELF, a symlink (not
 * followed), a FIFO (not waited on).
 * Cache: one read per (device, inode), "first in this epoch" once per epoch, a path that now
 * names another file gives none, a deleted file is reached through /proc/PID/map_files while
 * it is mapped, a reused inode number (new generation) is read again, and the number of
 * entries stays at the cap while files keep coming.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "prec_buildid.h"
#include "tap.h"

/* what Makefile.am links tests/workloads/demo-bid with (-Wl,--build-id=0x...) */
#define BID_HEX "707265636f72642d6275696c642d69642d746573"

static char dir[4096];

static void hex(const struct prec_buildid *b, char *out)
{
	unsigned int i;

	for (i = 0; i < b->len; i++)
		sprintf(out + 2 * i, "%02x", b->id[i]);
	out[2 * b->len] = 0;
}

static void path_in(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

/*
 * A 64-bit ELF file: header, one PT_NOTE program header (unless !phdr), the note bytes, and
 * with `shdr` a section table of a null section and one SHT_NOTE over the same bytes.
 */
static void write_elf(const char *path, const void *note, size_t note_len, bool phdr, bool shdr)
{
	unsigned char buf[4096];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Shdr sh[2];
	size_t note_off = sizeof(eh) + sizeof(ph), sh_off = note_off + ((note_len + 7) & ~7UL);
	int fd;

	memset(buf, 0, sizeof(buf));
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	if (phdr) {
		eh.e_phoff = sizeof(eh);
		eh.e_phentsize = sizeof(ph);
		eh.e_phnum = 1;
	}
	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_NOTE;
	ph.p_offset = note_off;
	ph.p_filesz = note_len;
	ph.p_align = 4;
	memset(sh, 0, sizeof(sh));
	if (shdr) {
		eh.e_shoff = sh_off;
		eh.e_shentsize = sizeof(sh[0]);
		eh.e_shnum = 2;
		sh[1].sh_type = SHT_NOTE;
		sh[1].sh_offset = note_off;
		sh[1].sh_size = note_len;
		sh[1].sh_addralign = 4;
	}
	memcpy(buf, &eh, sizeof(eh));
	memcpy(buf + sizeof(eh), &ph, sizeof(ph));
	memcpy(buf + note_off, note, note_len);
	memcpy(buf + sh_off, sh, sizeof(sh));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, buf, sh_off + sizeof(sh)) != (ssize_t)(sh_off + sizeof(sh))) {
		diag("cannot write %s: %s", path, strerror(errno));
		abort();
	}
	close(fd);
}

/* A GNU note of `type` with `desc_len` bytes 0x11, 0x22, ... into buf; its length. */
static size_t make_note(unsigned char *buf, uint32_t type, uint32_t desc_len)
{
	uint32_t h[3] = { 4, desc_len, type };
	uint32_t i;

	memcpy(buf, h, 12);
	memcpy(buf + 12, "GNU", 4);
	for (i = 0; i < desc_len; i++)
		buf[16 + i] = (unsigned char)(0x11 * (i + 1));
	return 16 + ((desc_len + 3) & ~3U);
}

static void test_linker_note(void)
{
	const char *top = getenv("top_builddir");
	struct prec_buildid b;
	char p[4096], h[64];
	int err;

	snprintf(p, sizeof(p), "%s/tests/workloads/demo-bid", top ? top : ".");
	err = prec_buildid_read_path(p, &b);
	if (!ok(err == 0, "read the build-id of the workload demo-bid (%s)", strerror(-err)))
		return;
	hex(&b, h);
	ok(!strcmp(h, BID_HEX), "it is the one it was linked with: %s", h);
}

static void test_made_files(void)
{
	unsigned char note[256];
	struct prec_buildid b;
	char p[4096], h[64];
	size_t n;
	int err;

	path_in(p, sizeof(p), "note8");
	write_elf(p, note, make_note(note, NT_GNU_BUILD_ID, 8), true, false);
	err = prec_buildid_read_path(p, &b);
	hex(&b, h);
	ok(err == 0 && b.len == 8 && !strcmp(h, "1122334455667788"),
	   "an 8-byte note in a PT_NOTE segment: %d, %s", err, err ? "-" : h);

	path_in(p, sizeof(p), "section");
	write_elf(p, note, make_note(note, NT_GNU_BUILD_ID, 20), false, true);
	err = prec_buildid_read_path(p, &b);
	ok(err == 0 && b.len == 20 && b.id[19] == (unsigned char)(0x11 * 20),
	   "a 20-byte note in a SHT_NOTE section of a file without program headers: %d", err);

	/* another note type first, then the build-id */
	n = make_note(note, 1, 4);
	n += make_note(note + n, NT_GNU_BUILD_ID, 16);
	path_in(p, sizeof(p), "second");
	write_elf(p, note, n, true, false);
	err = prec_buildid_read_path(p, &b);
	ok(err == 0 && b.len == 16, "the build-id note after another note: %d, %u bytes", err,
	   err ? 0 : b.len);

	path_in(p, sizeof(p), "other");
	write_elf(p, note, make_note(note, 1, 20), true, true);
	is_u64((uint64_t)prec_buildid_read_path(p, &b), (uint64_t)-ENODATA,
	       "only a note of another type: -ENODATA");

	path_in(p, sizeof(p), "long");
	write_elf(p, note, make_note(note, NT_GNU_BUILD_ID, 32), true, false);
	is_u64((uint64_t)prec_buildid_read_path(p, &b), (uint64_t)-ENODATA,
	       "a 32-byte build-id (more than perf's records hold): -ENODATA");

	path_in(p, sizeof(p), "nonote");
	write_elf(p, note, 0, false, false);
	is_u64((uint64_t)prec_buildid_read_path(p, &b), (uint64_t)-ENODATA,
	       "an ELF header alone: -ENODATA");

	/* the descriptor claims more bytes than the segment has; then absurd name sizes */
	n = make_note(note, NT_GNU_BUILD_ID, 20);
	path_in(p, sizeof(p), "cut");
	write_elf(p, note, n - 8, true, false);
	err = prec_buildid_read_path(p, &b);
	ok(err == -ENODATA, "a note cut short: %d", err);
	memset(note, 0xff, 12);
	path_in(p, sizeof(p), "absurd");
	write_elf(p, note, n, true, true);
	err = prec_buildid_read_path(p, &b);
	ok(err == -ENODATA, "a note header of 0xff bytes: %d", err);

	path_in(p, sizeof(p), "text");
	write_elf(p, "hello", 5, true, false);
	{
		int fd = open(p, O_WRONLY | O_TRUNC);

		ok(fd >= 0 && write(fd, "#!/bin/sh\n", 10) == 10, "made a text file");
		close(fd);
	}
	is_u64((uint64_t)prec_buildid_read_path(p, &b), (uint64_t)-ENOEXEC,
	       "a text file: -ENOEXEC");

	{
		char target[4096], link[4096], fifo[4096];

		path_in(target, sizeof(target), "note8");
		path_in(link, sizeof(link), "link");
		path_in(fifo, sizeof(fifo), "fifo");
		ok(!symlink(target, link), "made a symlink");
		is_u64((uint64_t)prec_buildid_read_path(link, &b), (uint64_t)-ELOOP,
		       "a symlink is not followed: -ELOOP");
		ok(!mkfifo(fifo, 0600), "made a FIFO");
		is_u64((uint64_t)prec_buildid_read_path(fifo, &b), (uint64_t)-EINVAL,
		       "a FIFO is refused without waiting for a writer: -EINVAL");
	}
}

static void mapped_file(const char *path, struct prec_mapped_file *f)
{
	struct stat st;

	memset(f, 0, sizeof(*f));
	if (stat(path, &st)) {
		diag("stat %s: %s", path, strerror(errno));
		abort();
	}
	f->maj = major(st.st_dev);
	f->min = minor(st.st_dev);
	f->ino = st.st_ino;
	f->path = path;
}

static void test_cache(void)
{
	struct prec_buildid_cache *c;
	struct prec_buildid_cache_stats st;
	struct prec_mapped_file f, g;
	struct prec_buildid b;
	unsigned char note[64];
	char p[4096], q[4096];
	void *map;
	int fd, r;

	if (!ok(prec_buildid_cache__new(0, &c) == 0, "a cache"))
		return;
	path_in(p, sizeof(p), "note8");
	mapped_file(p, &f);
	memset(&b, 0, sizeof(b));
	r = prec_buildid_cache__lookup(c, &f, &b);
	ok(r == 1 && b.len == 8 && b.id[0] == 0x11, "first lookup: 1 and the build-id (%d)", r);
	r = prec_buildid_cache__lookup(c, &f, &b);
	prec_buildid_cache__get_stats(c, &st);
	ok(r == 0 && st.reads == 1 && st.lookups == 2, "second: 0, the file read once (%d, %llu)",
	   r, (unsigned long long)st.reads);
	prec_buildid_cache__new_epoch(c);
	r = prec_buildid_cache__lookup(c, &f, &b);
	prec_buildid_cache__get_stats(c, &st);
	ok(r == 1 && st.reads == 1, "after a new epoch: 1 again, still one read (%d)", r);

	/* the path names another file now: none, remembered */
	g = f;
	g.ino++;
	r = prec_buildid_cache__lookup(c, &g, &b);
	r += prec_buildid_cache__lookup(c, &g, &b);
	prec_buildid_cache__get_stats(c, &st);
	ok(r == 0 && st.reads == 2, "a path whose inode is not the map's: none, read once");
	g = f;
	g.min++;
	ok(prec_buildid_cache__lookup(c, &g, &b) == 0, "nor one whose device is not the map's");
	g = f;
	g.path = "[vdso]";
	g.ino = 0;
	ok(prec_buildid_cache__lookup(c, &g, &b) == 0, "[vdso]: none, not looked up");

	/*
	 * The inode number is reused by another file: read again.  Generation 7 is either
	 * taken as the entry's (the file system does not tell generations) or differs from
	 * the one it tells; generation 9 then differs either way.
	 */
	f.ino_generation = 7;
	prec_buildid_cache__lookup(c, &f, &b);
	{
		struct prec_buildid_cache_stats st2;

		prec_buildid_cache__get_stats(c, &st2);
		f.ino_generation = 9;
		prec_buildid_cache__lookup(c, &f, &b);
		prec_buildid_cache__lookup(c, &f, &b);
		prec_buildid_cache__get_stats(c, &st);
		ok(st.reads == st2.reads + 1, "a new inode generation is read once more (%llu)",
		   (unsigned long long)(st.reads - st2.reads));
	}

	/* deleted while mapped: found through /proc/self/map_files */
	path_in(q, sizeof(q), "deleted");
	write_elf(q, note, make_note(note, NT_GNU_BUILD_ID, 20), true, false);
	mapped_file(q, &g);
	fd = open(q, O_RDONLY | O_CLOEXEC);
	map = fd >= 0 ? mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	if (fd >= 0)
		close(fd);
	if (ok(map != MAP_FAILED, "mapped a file") && ok(!unlink(q), "and deleted it")) {
		g.pid = getpid();
		g.start = (uint64_t)(uintptr_t)map;
		g.end = g.start + 4096;
		r = prec_buildid_cache__lookup(c, &g, &b);
		if (geteuid() == 0)
			ok(r == 1 && b.len == 20,
			   "its build-id comes from /proc/PID/map_files (%d)", r);
		else
			diag("not root: /proc/PID/map_files may be closed to us (got %d)", r);
		munmap(map, 4096);
	}
	prec_buildid_cache__free(c);
}

static void test_bounded(void)
{
	struct prec_buildid_cache *c;
	struct prec_buildid_cache_stats st;
	struct prec_mapped_file f[12];
	char p[12][4096];
	unsigned char note[64];
	struct prec_buildid b;
	int i, n1 = 0, good = 0;

	if (!ok(prec_buildid_cache__new(4, &c) == 0, "a cache of 4 entries"))
		return;
	for (i = 0; i < 12; i++) {
		char name[32];

		snprintf(name, sizeof(name), "many%d", i);
		path_in(p[i], sizeof(p[i]), name);
		make_note(note, NT_GNU_BUILD_ID, 20);
		note[16] = (unsigned char)i;
		write_elf(p[i], note, 36, true, false);
		mapped_file(p[i], &f[i]);
	}
	for (i = 0; i < 12; i++)
		n1 += prec_buildid_cache__lookup(c, &f[i], &b);
	prec_buildid_cache__get_stats(c, &st);
	ok(n1 == 12 && st.entries == 4 && st.evictions == 8,
	   "12 files through 4 entries: all found, %llu entries, %llu evictions",
	   (unsigned long long)st.entries, (unsigned long long)st.evictions);
	/* an evicted file is read again, with the right build-id */
	prec_buildid_cache__new_epoch(c);
	for (i = 0; i < 12; i++)
		if (prec_buildid_cache__lookup(c, &f[i], &b) == 1 && b.id[0] == (unsigned char)i)
			good++;
	prec_buildid_cache__get_stats(c, &st);
	ok(good == 12 && st.entries == 4, "read back after eviction: %d of 12 right, %llu entries",
	   good, (unsigned long long)st.entries);
	prec_buildid_cache__free(c);
	prec_buildid_cache__free(NULL);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	char cmd[4200];

	snprintf(dir, sizeof(dir), "%s/precord-test-buildid-XXXXXX", t && t[0] ? t : "/tmp");
	if (!mkdtemp(dir)) {
		diag("mkdtemp: %s", strerror(errno));
		return 1;
	}
	test_linker_note();
	test_made_files();
	test_cache();
	test_bounded();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		diag("could not remove %s", dir);
	return done_testing();
}
