/* SPDX-License-Identifier: MIT */
/*
 * write-stream: writes a synthetic recording of a real ELF binary with lib/data's writer, so
 * that tests can check what Linux perf (or preport) makes of our stream.
 *
 * Usage: write-stream -o OUT [--no-compress] [--level N] [--pid N] [--caller SYMBOL
 *                     [--bad-chain N]] [--map-name PATH] [--ino-gen N] [--kernel-bug]
 *                     BINARY SYMBOL:COUNT...
 *
 * The stream (pipe form, zstd level 1 unless told otherwise) holds one cpu-clock attr
 * (sample_type IP|TID|TIME|PERIOD, sample_id_all, period 1000000, user only), the features
 * HOSTNAME, OSRELEASE, ARCH, NRCPUS, CMDLINE and EVENT_DESC, then COMM for a fake pid, one
 * MMAP2 per executable PT_LOAD segment of BINARY, FINISHED_INIT, COUNT user SAMPLEs inside
 * each SYMBOL (interleaved in proportion), FINISHED_ROUND.
 *
 * --precord writes the VERSION feature precord writes ("precord test"), so that the stream
 * counts as precord's; --cut leaves the end marker out, as a killed precord does;
 * --clock-data WALL_NS sets use_clockid (CLOCK_MONOTONIC) and a CLOCK_DATA feature that puts
 * time 0 of the samples' clock at WALL_NS nanoseconds after the epoch.
 *
 * With --caller (one of the SYMBOLs, which may have COUNT 0), samples also have a call chain:
 * PERF_CONTEXT_USER, the ip, a return address in the caller; with --bad-chain N every Nth
 * sample's chain ends with -72, a value above PERF_CONTEXT_MAX that is no context (a
 * frame-pointer walk can end so), which perf 6.1 takes as a corrupt chain.
 *
 * The MMAP2 records are in inode form: BINARY's device and inode, generation 0 (--ino-gen N
 * gives another), named BINARY's real path (--map-name PATH names it so instead, e.g. with
 * " (deleted)" appended as the kernel does for an unlinked file).  --kernel-bug also sets
 * their build-id flag, as a kernel bug does in records of listeners that did not ask for
 * build-ids (see lib/state/prec_machine.c).
 *
 * Addresses: a symbol's st_value is a link-time virtual address.  The segment holding it is
 * mapped at base + page_down(p_vaddr) with pgoff page_down(p_offset) (base 0x555555554000
 * for ET_DYN, 0 for ET_EXEC), so a sample at base + st_value + k lies at file offset
 * st_value - p_vaddr + p_offset + k, which is where a reader finds the symbol again.
 *
 * With --wall SECONDS the samples are on CLOCK_MONOTONIC (attr use_clockid) and the stream has
 * the CLOCKID and CLOCK_DATA features, which put the first sample at that wall-clock time
 * (seconds since the epoch); --step-ms N spaces the samples N ms apart (default 1 ms).
 *
 * Errors are reported in one line on stderr; the exit status is 1 (2 for a usage error).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "prec_abi.h"
#include "prec_writer.h"

#define PAGE 4096ULL
#define DYN_BASE 0x555555554000ULL
#define MAX_SYMS 64
#define MAX_SEGS 16
#define MAX_COUNT 1000000UL
#define SAMPLE_PERIOD 1000000ULL /* 1 ms of cpu-clock, in ns */
#define SAMPLE_OFFSET 4		 /* bytes past the symbol start, when the symbol is that long */

struct sym_req {
	char name[256];
	unsigned long count;
	uint64_t vaddr, size;
	uint64_t ip; /* where its samples go */
};

struct seg {
	uint64_t addr, len, pgoff;
};

struct elf_info {
	uint64_t base;
	struct seg segs[MAX_SEGS];
	size_t nr_segs;
};

static const char *prog = "write-stream";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s -o OUT [--no-compress] [--level N] [--pid N] [--caller SYMBOL "
		"[--bad-chain N]] [--map-name PATH] [--ino-gen N] [--kernel-bug] [--precord] [--cut] "
		"[--clock-data WALL_NS] [--wall SECONDS] [--step-ms N] BINARY SYMBOL:COUNT...\n",
		prog);
}

static int parse_ulong(const char *s, unsigned long max, unsigned long *ret)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* Find each requested symbol in .symtab (or .dynsym when stripped). */
static int find_symbols(Elf *elf, const char *path, struct sym_req *reqs, size_t n)
{
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr shdr, symshdr = {0};
	Elf_Data *data;
	size_t i, j, nsyms;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr))
			continue;
		if (shdr.sh_type == SHT_SYMTAB || (shdr.sh_type == SHT_DYNSYM && !symscn)) {
			symscn = scn;
			symshdr = shdr;
		}
	}
	if (!symscn) {
		fprintf(stderr, "%s: %s has no symbol table\n", prog, path);
		return -1;
	}
	data = elf_getdata(symscn, NULL);
	if (!data || !symshdr.sh_entsize) {
		fprintf(stderr, "%s: cannot read the symbol table of %s: %s\n", prog, path,
			elf_errmsg(-1));
		return -1;
	}
	nsyms = symshdr.sh_size / symshdr.sh_entsize;
	for (i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, symshdr.sh_link, sym.st_name);
		if (!name)
			continue;
		for (j = 0; j < n; j++) {
			if (reqs[j].vaddr || strcmp(name, reqs[j].name))
				continue;
			reqs[j].vaddr = sym.st_value;
			reqs[j].size = sym.st_size;
		}
	}
	for (j = 0; j < n; j++) {
		if (!reqs[j].vaddr) {
			fprintf(stderr, "%s: no function '%s' in the symbol table of %s\n", prog,
				reqs[j].name, path);
			return -1;
		}
	}
	return 0;
}

/* The MMAP2 ranges of the executable PT_LOAD segments, and the sample ip of each symbol. */
static int map_segments(Elf *elf, const char *path, struct elf_info *info, struct sym_req *reqs,
			size_t n)
{
	GElf_Ehdr ehdr;
	size_t i, j, nph;

	if (!gelf_getehdr(elf, &ehdr) || elf_getphdrnum(elf, &nph)) {
		fprintf(stderr, "%s: cannot read the ELF header of %s: %s\n", prog, path,
			elf_errmsg(-1));
		return -1;
	}
	if (ehdr.e_type != ET_DYN && ehdr.e_type != ET_EXEC) {
		fprintf(stderr, "%s: %s is not an executable or shared object\n", prog, path);
		return -1;
	}
	info->base = ehdr.e_type == ET_DYN ? DYN_BASE : 0;

	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		uint64_t start, end;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if ((ph.p_vaddr - ph.p_offset) % PAGE) {
			fprintf(stderr,
				"%s: %s: segment %zu is not page-congruent "
				"(vaddr %#" PRIx64 ", offset %#" PRIx64 ")\n",
				prog, path, i, (uint64_t)ph.p_vaddr, (uint64_t)ph.p_offset);
			return -1;
		}
		if (info->nr_segs == MAX_SEGS) {
			fprintf(stderr, "%s: %s has more than %d executable segments\n", prog, path,
				MAX_SEGS);
			return -1;
		}
		start = ph.p_vaddr & ~(PAGE - 1);
		end = (ph.p_vaddr + ph.p_memsz + PAGE - 1) & ~(PAGE - 1);
		info->segs[info->nr_segs].addr = info->base + start;
		info->segs[info->nr_segs].len = end - start;
		info->segs[info->nr_segs].pgoff = ph.p_offset & ~(PAGE - 1);
		info->nr_segs++;

		for (j = 0; j < n; j++) {
			if (reqs[j].vaddr < ph.p_vaddr || reqs[j].vaddr >= ph.p_vaddr + ph.p_filesz)
				continue;
			reqs[j].ip = info->base + reqs[j].vaddr +
				     (reqs[j].size > SAMPLE_OFFSET ? SAMPLE_OFFSET : 0);
		}
	}
	for (j = 0; j < n; j++) {
		if (!reqs[j].ip) {
			fprintf(stderr, "%s: %s: '%s' (%#" PRIx64 ") is in no executable segment\n",
				prog, path, reqs[j].name, reqs[j].vaddr);
			return -1;
		}
	}
	return 0;
}

static int read_elf(const char *path, struct elf_info *info, struct sym_req *reqs, size_t n)
{
	Elf *elf = NULL;
	int fd, rc = -1;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		fprintf(stderr, "%s: libelf is out of date\n", prog);
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		fprintf(stderr, "%s: %s is not an ELF file\n", prog, path);
		goto out;
	}
	if (!find_symbols(elf, path, reqs, n) && !map_segments(elf, path, info, reqs, n))
		rc = 0;
out:
	elf_end(elf);
	close(fd);
	return rc;
}

/* What the stream says of its writer, its end and its clock. */
struct stream_opts {
	bool precord; /* VERSION "precord test" */
	bool cut; /* no end marker */
	bool clock_data;
	uint64_t wall_ns; /* CLOCK_DATA: the wall-clock time of clock time 0 */
};

static int write_features(struct prec_writer *w, int argc, char **argv,
			  const struct stream_opts *so)
{
	static const char *const names[] = {"cpu-clock"};
	struct utsname u;
	uint32_t nrcpus[2];
	long online = sysconf(_SC_NPROCESSORS_ONLN), conf = sysconf(_SC_NPROCESSORS_CONF);
	int err;

	if (uname(&u))
		return -errno;
	nrcpus[0] = conf > 0 ? (uint32_t)conf : 1;
	nrcpus[1] = online > 0 ? (uint32_t)online : 1;
	err = prec_writer__add_feature_string(w, PREC_FEAT_HOSTNAME, u.nodename);
	if (!err)
		err = prec_writer__add_feature_string(w, PREC_FEAT_OSRELEASE, u.release);
	if (!err)
		err = prec_writer__add_feature_string(w, PREC_FEAT_ARCH, u.machine);
	if (!err)
		err = prec_writer__add_feature(w, PREC_FEAT_NRCPUS, nrcpus, sizeof(nrcpus));
	if (!err)
		err = prec_writer__add_feature_strings(w, PREC_FEAT_CMDLINE,
						       (const char *const *)argv, (size_t)argc);
	if (!err && so->precord)
		err = prec_writer__add_feature_string(w, PREC_FEAT_VERSION,
						      PREC_VERSION_PREFIX "test");
	if (!err && so->clock_data) {
		/* u32 version 1, u32 clockid, u64 wall-clock ns, u64 clock ns of the same moment */
		uint32_t head[2] = {1, CLOCK_MONOTONIC};
		uint64_t at[2] = {so->wall_ns, 0};
		unsigned char cd[24];

		memcpy(cd, head, 8);
		memcpy(cd + 8, at, 16);
		err = prec_writer__add_feature(w, PREC_FEAT_CLOCK_DATA, cd, sizeof(cd));
	}
	if (!err)
		err = prec_writer__add_event_desc(w, names);
	return err;
}

struct chain_opts {
	const struct sym_req *caller; /* NULL: no call chains */
	unsigned long bad_every; /* 0: none */
};

struct time_opts {
	uint64_t wall_s; /* 0: no wall-clock data */
	uint64_t step_ns; /* between samples */
};

#define FIRST_SAMPLE_TIME 1000000ULL

/* CLOCKID (1 ns) and CLOCK_DATA: the first sample's time is wall_s on the wall clock. */
static int write_clock(struct prec_writer *w, const struct time_opts *to)
{
	uint64_t res = 1;
	unsigned char cd[24];
	uint32_t version = 1, clockid = CLOCK_MONOTONIC;
	uint64_t tod = to->wall_s * 1000000000ULL, clk = FIRST_SAMPLE_TIME;
	int err;

	memcpy(cd, &version, 4);
	memcpy(cd + 4, &clockid, 4);
	memcpy(cd + 8, &tod, 8);
	memcpy(cd + 16, &clk, 8);
	err = prec_writer__add_feature(w, PREC_FEAT_CLOCKID, &res, sizeof(res));
	if (!err)
		err = prec_writer__add_feature(w, PREC_FEAT_CLOCK_DATA, cd, sizeof(cd));
	return err;
}

struct map_opts {
	const char *name; /* NULL: the binary's path */
	uint64_t ino_gen;
	bool kernel_bug;
};

static int write_stream(struct prec_writer *w, int argc, char **argv, const char *binary,
			const struct elf_info *info, const struct sym_req *reqs, size_t n,
			uint32_t pid, const struct chain_opts *co, const struct map_opts *mo,
			const struct stream_opts *so, const struct time_opts *to)
{
	struct perf_event_attr attr;
	unsigned long done[MAX_SYMS] = {0};
	uint64_t id = 1, time = FIRST_SAMPLE_TIME, total = 0, emitted = 0;
	const char *comm = strrchr(binary, '/') ? strrchr(binary, '/') + 1 : binary;
	struct stat st;
	size_t i;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.size = sizeof(attr);
	attr.sample_period = SAMPLE_PERIOD;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	if (co->caller)
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	attr.disabled = 1;
	attr.inherit = 1;
	attr.mmap = 1;
	attr.comm = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.enable_on_exec = 1;
	attr.sample_id_all = 1;
	attr.mmap2 = 1;
	attr.comm_exec = 1;
	if (so->clock_data || to->wall_s) {
		attr.use_clockid = 1;
		attr.clockid = CLOCK_MONOTONIC;
	}

	if (stat(binary, &st))
		return -errno;
	err = prec_writer__add_attr(w, &attr, &id, 1);
	if (!err)
		err = write_features(w, argc, argv, so);
	if (!err && to->wall_s)
		err = write_clock(w, to);
	if (!err)
		err = prec_writer__end_header(w);
	if (!err)
		err = prec_writer__add_comm(w, pid, pid, comm, true, NULL);
	for (i = 0; !err && i < info->nr_segs; i++) {
		struct prec_mmap2 m = {
		    .pid = pid,
		    .tid = pid,
		    .addr = info->segs[i].addr,
		    .len = info->segs[i].len,
		    .pgoff = info->segs[i].pgoff,
		    .maj = major(st.st_dev),
		    .min = minor(st.st_dev),
		    .ino = st.st_ino,
		    .ino_generation = mo->ino_gen,
		    .prot = PROT_READ | PROT_EXEC,
		    .flags = MAP_PRIVATE,
		    .filename = mo->name ? mo->name : binary,
		};

		err = prec_writer__add_mmap2(
		    w,
		    PERF_RECORD_MISC_USER | (mo->kernel_bug ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0),
		    &m, NULL);
	}
	if (!err)
		err = prec_writer__add_finished_init(w);

	/* Interleave the samples: each symbol gets its share of every stretch of the stream. */
	for (i = 0; i < n; i++)
		total += reqs[i].count;
	while (!err && emitted < total) {
		for (i = 0; !err && i < n; i++) {
			struct prec_sample s;
			uint64_t chain[4];

			if (done[i] == reqs[i].count ||
			    (uint64_t)done[i] * total > emitted * reqs[i].count)
				continue;
			memset(&s, 0, sizeof(s));
			s.ip = reqs[i].ip;
			s.pid = s.tid = pid;
			s.time = time;
			s.period = SAMPLE_PERIOD;
			if (co->caller) {
				chain[0] = (uint64_t)PERF_CONTEXT_USER;
				chain[1] = s.ip;
				chain[2] = co->caller->ip; /* a return address inside the caller */
				chain[3] = (uint64_t)-72;
				s.callchain = chain;
				s.callchain_nr =
					co->bad_every && (emitted + 1) % co->bad_every == 0 ? 4 : 3;
			}
			time += to->step_ns;
			err = prec_writer__add_sample(w, 0, PERF_RECORD_MISC_USER, &s);
			done[i]++;
			emitted++;
		}
	}
	if (!err)
		err = prec_writer__add_finished_round(w);
	if (!err)
		err = so->cut ? prec_writer__flush(w) : prec_writer__finish(w);
	return err;
}

int main(int argc, char **argv)
{
	enum {
		OPT_NO_COMPRESS = 256,
		OPT_LEVEL,
		OPT_PID,
		OPT_CALLER,
		OPT_BAD_CHAIN,
		OPT_MAP_NAME,
		OPT_INO_GEN,
		OPT_KERNEL_BUG,
		OPT_PRECORD,
		OPT_CUT,
		OPT_CLOCK_DATA,
		OPT_WALL,
		OPT_STEP_MS
	};
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"no-compress", no_argument, NULL, OPT_NO_COMPRESS},
	    {"level", required_argument, NULL, OPT_LEVEL},
	    {"pid", required_argument, NULL, OPT_PID},
	    {"caller", required_argument, NULL, OPT_CALLER},
	    {"bad-chain", required_argument, NULL, OPT_BAD_CHAIN},
	    {"map-name", required_argument, NULL, OPT_MAP_NAME},
	    {"ino-gen", required_argument, NULL, OPT_INO_GEN},
	    {"kernel-bug", no_argument, NULL, OPT_KERNEL_BUG},
	    {"precord", no_argument, NULL, OPT_PRECORD},
	    {"cut", no_argument, NULL, OPT_CUT},
	    {"clock-data", required_argument, NULL, OPT_CLOCK_DATA},
	    {"wall", required_argument, NULL, OPT_WALL},
	    {"step-ms", required_argument, NULL, OPT_STEP_MS},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct prec_writer_opts wopts = {.compress_level = 1};
	struct sym_req reqs[MAX_SYMS];
	struct elf_info info;
	struct prec_writer *w = NULL;
	const char *out = NULL, *caller = NULL;
	struct chain_opts co = {0};
	struct map_opts mo = {0};
	struct stream_opts so = {0};
	struct time_opts to = {0, SAMPLE_PERIOD};
	char binary[PATH_MAX], *end;
	unsigned long v, pid = 4242;
	size_t n = 0;
	int c, i, fd, err;

	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case OPT_NO_COMPRESS:
			wopts.compress_level = 0;
			break;
		case OPT_LEVEL:
			if (parse_ulong(optarg, 22, &v) || !v) {
				fprintf(stderr, "%s: --level takes a zstd level 1..22, not '%s'\n",
					prog, optarg);
				return 2;
			}
			wopts.compress_level = (int)v;
			break;
		case OPT_PID:
			if (parse_ulong(optarg, INT32_MAX, &v) || !v) {
				fprintf(stderr, "%s: --pid takes a positive number, not '%s'\n",
					prog, optarg);
				return 2;
			}
			pid = v;
			break;
		case OPT_CALLER:
			caller = optarg;
			break;
		case OPT_BAD_CHAIN:
			if (parse_ulong(optarg, MAX_COUNT, &v) || !v) {
				fprintf(stderr, "%s: --bad-chain takes a positive number, not '%s'\n",
					prog, optarg);
				return 2;
			}
			co.bad_every = v;
			break;
		case OPT_MAP_NAME:
			mo.name = optarg;
			break;
		case OPT_INO_GEN:
			if (parse_ulong(optarg, UINT32_MAX, &v)) {
				fprintf(stderr, "%s: --ino-gen takes a number, not '%s'\n", prog,
					optarg);
				return 2;
			}
			mo.ino_gen = v;
			break;
		case OPT_KERNEL_BUG:
			mo.kernel_bug = true;
			break;
		case OPT_PRECORD:
			so.precord = true;
			break;
		case OPT_CUT:
			so.cut = true;
			break;
		case OPT_CLOCK_DATA:
			errno = 0;
			so.wall_ns = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-') {
				fprintf(stderr, "%s: --clock-data takes nanoseconds, not '%s'\n",
					prog, optarg);
				return 2;
			}
			so.clock_data = true;
			break;
		case OPT_WALL:
			if (parse_ulong(optarg, 1UL << 40, &v) || !v) {
				fprintf(stderr, "%s: --wall takes seconds since the epoch, not '%s'\n",
					prog, optarg);
				return 2;
			}
			to.wall_s = v;
			break;
		case OPT_STEP_MS:
			if (parse_ulong(optarg, 86400000UL, &v) || !v) {
				fprintf(stderr, "%s: --step-ms takes a positive number, not '%s'\n",
					prog, optarg);
				return 2;
			}
			to.step_ns = v * 1000000ULL;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!out || argc - optind < 2) {
		usage(stderr);
		return 2;
	}
	if (!realpath(argv[optind], binary)) {
		fprintf(stderr, "%s: cannot find %s: %s\n", prog, argv[optind], strerror(errno));
		return 1;
	}
	memset(reqs, 0, sizeof(reqs));
	memset(&info, 0, sizeof(info));
	for (i = optind + 1; i < argc; i++) {
		const char *colon = strrchr(argv[i], ':');

		if (n == MAX_SYMS) {
			fprintf(stderr, "%s: at most %d symbols\n", prog, MAX_SYMS);
			return 2;
		}
		if (!colon || colon == argv[i] ||
		    (size_t)(colon - argv[i]) >= sizeof(reqs[n].name) ||
		    parse_ulong(colon + 1, MAX_COUNT, &v)) {
			fprintf(stderr, "%s: '%s' is not SYMBOL:COUNT (COUNT 0..%lu)\n", prog,
				argv[i], MAX_COUNT);
			return 2;
		}
		memcpy(reqs[n].name, argv[i], (size_t)(colon - argv[i]));
		reqs[n].count = v;
		n++;
	}
	if (read_elf(binary, &info, reqs, n))
		return 1;
	for (i = 0; caller && i < (int)n; i++)
		if (!strcmp(reqs[i].name, caller))
			co.caller = &reqs[i];
	if (caller && !co.caller) {
		fprintf(stderr, "%s: --caller %s is not one of the SYMBOL:COUNT given\n", prog,
			caller);
		return 2;
	}

	if (!strcmp(out, "-"))
		fd = STDOUT_FILENO;
	else
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot create %s: %s\n", prog, out, strerror(errno));
		return 1;
	}
	err = prec_writer__new(fd, &wopts, &w);
	if (!err)
		err = write_stream(w, argc, argv, binary, &info, reqs, n, (uint32_t)pid, &co, &mo,
				   &so, &to);
	prec_writer__free(w);
	if (fd != STDOUT_FILENO && close(fd) && !err)
		err = -errno;
	if (err) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, out, strerror(-err));
		return 1;
	}
	return 0;
}
