/* SPDX-License-Identifier: MIT */
/*
 * Synthesized records and header features: what the kernel will not tell us because it
 * existed before recording started (threads, their maps, the kernel text map), the build-id
 * records of mapped files (for these maps and the kernel's, read once per file through the
 * cache), and facts about the machine for `preport --header`.  Everything else here reads
 * /proc and /sys; a process that disappears while it is read is skipped silently (it raced
 * with us).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "prec_abi.h"
#include "prec_buildid.h"
#include "prec_events.h"
#include "prec_synth.h"

/* How many CPUs a sysfs CPU list names, -1 if it cannot be read. */
static int count_cpus(const char *path)
{
	int *cpus;
	size_t n;

	if (prec_cpus_read(path, &cpus, &n))
		return -1;
	free(cpus);
	return (int)n;
}

static void cpuinfo(char *desc, size_t dlen, char *id, size_t idlen)
{
	char line[512], vendor[64] = "", family[16] = "", model[16] = "", stepping[16] = "";
	FILE *f = fopen("/proc/cpuinfo", "re");

	snprintf(desc, dlen, "unknown");
	id[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *v;
		size_t n;

		if (!colon)
			continue;
		if (line[0] == '\n')
			break;
		v = colon + 1;
		while (*v == ' ')
			v++;
		n = strlen(v);
		while (n && (v[n - 1] == '\n' || v[n - 1] == ' '))
			v[--n] = 0;
		if (!strncmp(line, "model name", 10))
			snprintf(desc, dlen, "%s", v);
		else if (!strncmp(line, "vendor_id", 9))
			snprintf(vendor, sizeof(vendor), "%s", v);
		else if (!strncmp(line, "cpu family", 10))
			snprintf(family, sizeof(family), "%s", v);
		else if (!strncmp(line, "model", 5) && line[5] != ' ')
			snprintf(model, sizeof(model), "%s", v);
		else if (!strncmp(line, "model\t", 6))
			snprintf(model, sizeof(model), "%s", v);
		else if (!strncmp(line, "stepping", 8))
			snprintf(stepping, sizeof(stepping), "%s", v);
	}
	fclose(f);
	if (vendor[0])
		snprintf(id, idlen, "%s,%s,%s,%s", vendor, family, model, stepping);
}

int prec_synth_features(struct prec_writer *w, int argc, char **argv)
{
	char desc[256], id[128], self[PATH_MAX];
	struct utsname u;
	struct sysinfo si;
	uint32_t nrcpus[2];
	const char **args;
	uint64_t mem;
	ssize_t n;
	int err, i;

	if (uname(&u) == 0) {
		err = prec_writer__add_feature_string(w, PREC_FEAT_HOSTNAME, u.nodename);
		if (!err)
			err = prec_writer__add_feature_string(w, PREC_FEAT_OSRELEASE, u.release);
		if (!err)
			err = prec_writer__add_feature_string(w, PREC_FEAT_ARCH, u.machine);
		if (err)
			return err;
	}
	/* "precord 0.1.0": tells preport that the stream ends with the end marker */
	err = prec_writer__add_feature_string(w, PREC_FEAT_VERSION,
					      PREC_VERSION_PREFIX PACKAGE_VERSION);
	if (err)
		return err;
	nrcpus[0] = (uint32_t)count_cpus("/sys/devices/system/cpu/present");
	nrcpus[1] = (uint32_t)count_cpus("/sys/devices/system/cpu/online");
	err = prec_writer__add_feature(w, PREC_FEAT_NRCPUS, nrcpus, sizeof(nrcpus));
	if (err)
		return err;
	cpuinfo(desc, sizeof(desc), id, sizeof(id));
	err = prec_writer__add_feature_string(w, PREC_FEAT_CPUDESC, desc);
	if (!err && id[0])
		err = prec_writer__add_feature_string(w, PREC_FEAT_CPUID, id);
	if (err)
		return err;
	if (sysinfo(&si) == 0) {
		mem = (uint64_t)si.totalram * si.mem_unit / 1024;
		err = prec_writer__add_feature(w, PREC_FEAT_TOTAL_MEM, &mem, sizeof(mem));
		if (err)
			return err;
	}
	args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args)
		return -ENOMEM;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = 0;
	args[0] = n > 0 ? self : argv[0];
	for (i = 1; i < argc; i++)
		args[i] = argv[i];
	err = prec_writer__add_feature_strings(w, PREC_FEAT_CMDLINE, args, (size_t)argc);
	free(args);
	return err;
}

int prec_synth_clock(struct prec_writer *w, int clockid)
{
	struct timespec res, wall, clk, wall2;
	uint64_t ns;
	struct __attribute__((packed)) {
		uint32_t version, clockid;
		uint64_t wall_ns, clock_ns;
	} data;
	int err;

	if (clock_getres(clockid, &res) || clock_gettime(CLOCK_REALTIME, &wall) ||
	    clock_gettime(clockid, &clk) || clock_gettime(CLOCK_REALTIME, &wall2))
		return -errno;
	/* the clock is read between two wall-clock readings: take their middle */
	ns = (uint64_t)res.tv_sec * 1000000000u + (uint64_t)res.tv_nsec;
	err = prec_writer__add_feature(w, PREC_FEAT_CLOCKID, &ns, sizeof(ns));
	if (err)
		return err;
	data.version = 1;
	data.clockid = (uint32_t)clockid;
	data.wall_ns = ((uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec) / 2 +
		       ((uint64_t)wall2.tv_sec * 1000000000u + (uint64_t)wall2.tv_nsec) / 2;
	data.clock_ns = (uint64_t)clk.tv_sec * 1000000000u + (uint64_t)clk.tv_nsec;
	return prec_writer__add_feature(w, PREC_FEAT_CLOCK_DATA, &data, sizeof(data));
}

/* Find `_text` and, if etext is not NULL, `_etext` in /proc/kallsyms; stop after
 * `max_lines` lines (0: no limit). */
static void scan_kallsyms(uint64_t *text, uint64_t *etext, unsigned int max_lines)
{
	char line[512], type, name[256];
	unsigned int n = 0;
	uint64_t addr;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && (!*text || (etext && !*etext))) {
		if (max_lines && ++n > max_lines)
			break;
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			*text = addr;
		else if (etext && !strcmp(name, "_etext"))
			*etext = addr;
	}
	fclose(f);
}

/* Size of the kernel text: /proc/iomem's "Kernel code" resource spans [_text, _etext). */
static uint64_t iomem_kernel_code_size(void)
{
	char line[256];
	uint64_t lo, hi, size = 0;
	FILE *f = fopen("/proc/iomem", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, ": Kernel code"))
			continue;
		if (sscanf(line, " %" SCNx64 "-%" SCNx64, &lo, &hi) == 2 && hi > lo)
			size = hi - lo + 1;
		break;
	}
	fclose(f);
	return size;
}

int prec_synth_kernel_mmap(struct prec_writer *w)
{
	uint64_t text = 0, etext = 0, len;

	/*
	 * Generating all of /proc/kallsyms costs the kernel tens of milliseconds, so take
	 * _text from its first lines and the length from /proc/iomem when we can.
	 */
	scan_kallsyms(&text, NULL, 64);
	len = text ? iomem_kernel_code_size() : 0;
	if (!len) {
		text = 0;
		scan_kallsyms(&text, &etext, 0);
		len = etext > text ? etext - text : 0;
	}
	if (!text || !len)
		return 0; /* addresses hidden (kptr_restrict): kernel samples stay unresolved */
	return prec_writer__add_mmap(w, PERF_RECORD_MISC_KERNEL, (uint32_t)-1, 0, text, len, text,
				     "[kernel.kallsyms]_text", NULL);
}

static int read_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

int prec_synth_build_id(struct prec_writer *w, struct prec_buildid_cache *bids, uint16_t misc,
			const struct prec_mmap2 *m)
{
	struct prec_mapped_file f = {
		.maj = m->maj,
		.min = m->min,
		.ino = m->ino,
		.ino_generation = m->ino_generation,
		.path = m->filename,
		.pid = (pid_t)m->pid,
		.start = m->addr,
		.end = m->addr + m->len,
	};
	struct prec_buildid b;

	/* kernel-made build-ids (another tool's attr.build_id) are the kernel's business */
	if (!bids || m->has_build_id ||
	    (misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)
		return 0;
	if (prec_buildid_cache__lookup(bids, &f, &b) <= 0)
		return 0;
	/* pid -1: the host; perf's reader keys build-ids by path within a machine */
	return prec_writer__add_build_id(w, PERF_RECORD_MISC_USER, -1, b.id, b.len, m->filename);
}

int prec_synth_read_maps(const struct prec_synth_sink *k, pid_t pid, bool data_maps)
{
	char path[64], line[PATH_MAX + 256];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!err && fgets(line, sizeof(line), f)) {
		struct prec_mmap2 m = { 0 };
		uint64_t start, end, off, ino;
		unsigned int maj, min;
		char perms[8];
		uint16_t misc;
		int pos = 0;
		char *name;
		size_t n;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n",
			   &start, &end, perms, &off, &maj, &min, &ino, &pos) < 7)
			continue;
		if (perms[2] != 'x' && (!data_maps || perms[0] != 'r'))
			continue;
		name = line + pos;
		n = strlen(name);
		while (n && (name[n - 1] == '\n' || name[n - 1] == ' '))
			name[--n] = 0;
		if (!n)
			name = "//anon";
		m.pid = m.tid = (uint32_t)pid;
		m.addr = start;
		m.len = end - start;
		m.pgoff = off;
		m.maj = maj;
		m.min = min;
		m.ino = ino;
		m.prot = (perms[0] == 'r' ? 1 : 0) | (perms[1] == 'w' ? 2 : 0) |
			 (perms[2] == 'x' ? 4 : 0); /* PROT_READ, PROT_WRITE, PROT_EXEC */
		m.flags = perms[3] == 's' ? 1 : 2; /* MAP_SHARED : MAP_PRIVATE */
		m.filename = name;
		misc = PERF_RECORD_MISC_USER;
		if (perms[2] != 'x')
			misc |= PERF_RECORD_MISC_MMAP_DATA; /* as the kernel marks such maps */
		err = k->mmap2(k->ctx, misc, &m);
	}
	fclose(f);
	return err;
}

/* The process (thread group) that thread `tid` belongs to; tid itself when /proc cannot say. */
static pid_t read_tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Tgid:", 5)) {
			long v = strtol(line + 5, NULL, 10);

			if (v > 0 && v <= INT_MAX)
				tgid = (pid_t)v;
			break;
		}
	}
	fclose(f);
	return tgid;
}

/* The threads' comms, then the maps, of process `pid` (a thread group id). */
static int read_tgid(const struct prec_synth_sink *k, pid_t pid, bool data_maps)
{
	char path[64], comm[64];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		pid_t tid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = (pid_t)atoi(de->d_name);
		if (read_comm(pid, tid, comm, sizeof(comm)))
			continue;
		err = k->comm(k->ctx, pid, tid, comm);
	}
	closedir(d);
	return err ? err : prec_synth_read_maps(k, pid, data_maps);
}

int prec_synth_read_process(const struct prec_synth_sink *k, pid_t pid, bool data_maps)
{
	/* -t passes thread ids: the records must name the thread's process, as samples do */
	return read_tgid(k, read_tgid_of(pid), data_maps);
}

int prec_synth_read_all(const struct prec_synth_sink *k, bool data_maps)
{
	struct dirent *de;
	DIR *d = opendir("/proc");
	int err = 0;

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		err = read_tgid(k, (pid_t)atoi(de->d_name), data_maps);
	}
	closedir(d);
	return err;
}

/* A sink that writes COMM and MMAP2 records (each file's build-id record first). */
struct writer_sink {
	struct prec_writer *w;
	struct prec_buildid_cache *bids;
};

static int write_comm(void *ctx, pid_t pid, pid_t tid, const char *comm)
{
	struct writer_sink *ws = ctx;

	return prec_writer__add_comm(ws->w, (uint32_t)pid, (uint32_t)tid, comm, false, NULL);
}

static int write_mmap2(void *ctx, uint16_t misc, const struct prec_mmap2 *m)
{
	struct writer_sink *ws = ctx;
	int err = prec_synth_build_id(ws->w, ws->bids, misc, m);

	return err ? err : prec_writer__add_mmap2(ws->w, misc, m, NULL);
}

int prec_synth_process(struct prec_writer *w, pid_t pid, bool data_maps,
		       struct prec_buildid_cache *bids)
{
	struct writer_sink ws = { w, bids };
	struct prec_synth_sink k = { write_comm, write_mmap2, &ws };

	return prec_synth_read_process(&k, pid, data_maps);
}

int prec_synth_all_processes(struct prec_writer *w, bool data_maps,
			     struct prec_buildid_cache *bids)
{
	struct writer_sink ws = { w, bids };
	struct prec_synth_sink k = { write_comm, write_mmap2, &ws };

	return prec_synth_read_all(&k, data_maps);
}
