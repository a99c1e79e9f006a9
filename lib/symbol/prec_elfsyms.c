/* SPDX-License-Identifier: MIT */
/*
 * ELF files for symbolization: opening them safely, reading their build-id, debug links and
 * symbol tables, and synthesizing name@plt entries.
 *
 * Invariants: a file is opened without blocking and only if it is a regular file no larger
 * than PREC_ELF_MAX_SIZE; it is mapped with libelf (ELF_C_READ_MMAP) and its fd is closed at
 * once, so a DSO costs an address range, not a descriptor.  Every section and symbol index,
 * string offset and entry count read from the file is checked before use; libelf checks that
 * section contents lie inside the file.  Which symbols are kept follows perf (6.1 and later):
 * named functions (STT_FUNC, STT_GNU_IFUNC) and objects in allocated sections, plus named
 * untyped labels in text or data sections; absolute and undefined symbols are dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/fs.h>

#include "prec_log.h"
#include "prec_symbol_int.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif
#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

/* ---- opening ---- */

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

static bool refuse_stat(const char *path, const struct stat *st)
{
	if (!S_ISREG(st->st_mode)) {
		prec_warn("%s: %s; not read for symbols", path, file_kind(st->st_mode));
		return true;
	}
	if ((uint64_t)st->st_size > PREC_ELF_MAX_SIZE) {
		prec_warn("%s: %" PRIu64
			  " bytes, more than the %llu GiB limit; not read for symbols",
			  path, (uint64_t)st->st_size, PREC_ELF_MAX_SIZE >> 30);
		return true;
	}
	return false;
}

static void find_build_id_in(Elf_Data *data, struct prec_elf *pe)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)data->d_buf + name_off, "GNU", 4) && nh.n_descsz > 0 &&
		    nh.n_descsz <= PREC_FILE_BUILD_ID_MAX) {
			memcpy(pe->build_id, (const char *)data->d_buf + desc_off, nh.n_descsz);
			pe->build_id_len = (uint8_t)nh.n_descsz;
			return;
		}
		off = next;
	}
}

/* The GNU build-id note, from SHT_NOTE sections, else from PT_NOTE segments. */
static void read_build_id(struct prec_elf *pe)
{
	Elf_Scn *scn = NULL;
	size_t i, phnum;

	while (!pe->build_id_len && (scn = elf_nextscn(pe->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    sh.sh_size > PREC_NOTES_MAX)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf)
			find_build_id_in(data, pe);
	}
	if (pe->build_id_len || elf_getphdrnum(pe->elf, &phnum))
		return;
	for (i = 0; i < phnum && !pe->build_id_len; i++) {
		GElf_Phdr ph;
		Elf_Data *data;

		if (!gelf_getphdr(pe->elf, (int)i, &ph) || ph.p_type != PT_NOTE || !ph.p_filesz ||
		    ph.p_filesz > PREC_NOTES_MAX)
			continue;
		data = elf_getdata_rawchunk(pe->elf, (int64_t)ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (data && data->d_buf)
			find_build_id_in(data, pe);
	}
}

/* A cut file: header tables or section contents past its end. */
static const char *check_extents(Elf *elf, const GElf_Ehdr *eh, size_t shnum, size_t phnum)
{
	Elf_Scn *scn = NULL;
	size_t size;

	if (!elf_rawfile(elf, &size))
		return "cannot map the file";
	/* libelf quietly reports no sections when their headers are past the end */
	if (eh->e_shnum > shnum)
		shnum = eh->e_shnum;
	if (eh->e_phnum != PN_XNUM && eh->e_phnum > phnum)
		phnum = eh->e_phnum;
	if (phnum && (eh->e_phoff > size || (uint64_t)phnum * eh->e_phentsize > size - eh->e_phoff))
		return "truncated: program headers past the end";
	if (shnum && (eh->e_shoff > size || (uint64_t)shnum * eh->e_shentsize > size - eh->e_shoff))
		return "truncated: section headers past the end";
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return "bad section header";
		if (sh.sh_type != SHT_NOBITS &&
		    (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset))
			return "truncated: a section lies past the end";
	}
	return NULL;
}

/* Header sanity, build-id, and which tables the file has. */
static enum prec_open_result validate(const char *path, struct prec_elf *pe)
{
	size_t shnum, shstrndx, phnum;
	Elf_Scn *scn = NULL;
	const char *why = NULL;

	if (elf_kind(pe->elf) != ELF_K_ELF)
		why = "not an ELF file";
	else if (gelf_getclass(pe->elf) == ELFCLASSNONE)
		why = "bad ELF class";
	else if (!gelf_getehdr(pe->elf, &pe->ehdr))
		why = "bad ELF header";
	else if (pe->ehdr.e_ident[EI_DATA] != ELFDATA2LSB &&
		 pe->ehdr.e_ident[EI_DATA] != ELFDATA2MSB)
		why = "bad ELF data encoding";
	else if (elf_getshdrnum(pe->elf, &shnum) || elf_getshdrstrndx(pe->elf, &shstrndx) ||
		 (shnum && shstrndx >= shnum))
		why = "bad section headers";
	else if (elf_getphdrnum(pe->elf, &phnum))
		why = "bad program headers";
	if (!why)
		why = check_extents(pe->elf, &pe->ehdr, shnum, phnum);
	if (why) {
		prec_warn("%s: %s; not used for symbols", path, why);
		return PREC_OPEN_BAD;
	}
	read_build_id(pe);
	while ((scn = elf_nextscn(pe->elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && sh.sh_size > 0)
			pe->has_symtab = true;
		if (sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		name = elf_strptr(pe->elf, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
			pe->has_debug_info = true;
	}
	return PREC_OPEN_OK;
}

enum prec_open_result prec_elf_open(const char *path, struct prec_elf *ret)
{
	struct prec_elf pe = { 0 };
	enum prec_open_result r;
	struct stat st;
	int fd;

	/* stat first so devices and FIFOs are refused without being opened at all */
	if (stat(path, &st))
		return PREC_OPEN_MISSING;
	if (refuse_stat(path, &st))
		return PREC_OPEN_BAD;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return PREC_OPEN_MISSING;
	/* the path may have been replaced since the stat */
	if (fstat(fd, &st) || refuse_stat(path, &st)) {
		close(fd);
		return PREC_OPEN_BAD;
	}
	pe.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	/* FDREAD pulls everything in when the mapping failed and, like FDDONE, detaches the
	 * fd, which is then not needed */
	if (!pe.elf || elf_cntl(pe.elf, ELF_C_FDREAD)) {
		prec_warn("%s: cannot read as ELF (%s); not used for symbols", path,
			  elf_errmsg(-1));
		elf_end(pe.elf);
		close(fd);
		return PREC_OPEN_BAD;
	}
	pe.dev_major = major(st.st_dev);
	pe.dev_minor = minor(st.st_dev);
	pe.ino = st.st_ino;
	{
		/* the kernel's i_generation, which MMAP2 records carry: where the file system
		 * has one (ext4, xfs, btrfs, ...), it tells a reused inode number apart; they
		 * write an int, though the request is declared with a long: room for both */
		unsigned int gen[2] = {0, 0};

		if (!ioctl(fd, FS_IOC_GETVERSION, gen)) {
			pe.gen = gen[0];
			pe.gen_known = true;
		}
	}
	close(fd);
	r = validate(path, &pe);
	if (r != PREC_OPEN_OK) {
		elf_end(pe.elf);
		return r;
	}
	*ret = pe;
	return PREC_OPEN_OK;
}

enum prec_open_result prec_elf_open_mem(void *image, size_t size, const char *name,
					struct prec_elf *ret)
{
	struct prec_elf pe = { 0 };
	enum prec_open_result r;

	pe.elf = elf_memory(image, size);
	if (!pe.elf) {
		prec_warn("%s: cannot read as ELF (%s)", name, elf_errmsg(-1));
		return PREC_OPEN_BAD;
	}
	r = validate(name, &pe);
	if (r != PREC_OPEN_OK) {
		elf_end(pe.elf);
		return r;
	}
	*ret = pe;
	return PREC_OPEN_OK;
}

void prec_elf_close(struct prec_elf *pe)
{
	if (!pe)
		return;
	elf_end(pe->elf);
	pe->elf = NULL;
}

/* ---- sections by name ---- */

static Elf_Scn *section_by_name(Elf *elf, const char *want, GElf_Shdr *ret_sh, size_t *ret_idx)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, ret_sh))
			continue;
		name = elf_strptr(elf, shstrndx, ret_sh->sh_name);
		if (name && !strcmp(name, want)) {
			if (ret_idx)
				*ret_idx = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

/* A section's bytes when it has some; NULL for NOBITS, empty or unreadable ones. */
static Elf_Data *section_bytes(Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data;

	if (sh->sh_type == SHT_NOBITS || !sh->sh_size)
		return NULL;
	data = elf_getdata(scn, NULL);
	return data && data->d_buf && data->d_size ? data : NULL;
}

const char *prec_elf_debuglink(Elf *elf, uint32_t *ret_crc)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_by_name(elf, ".gnu_debuglink", &sh, NULL);
	Elf_Data *data = scn ? section_bytes(scn, &sh) : NULL;
	const char *p, *nul;
	size_t crc_off;
	uint32_t crc;

	if (!data)
		return NULL;
	p = data->d_buf;
	nul = memchr(p, 0, data->d_size);
	if (!nul || nul == p || memchr(p, '/', (size_t)(nul - p)))
		return NULL;
	crc_off = ((size_t)(nul - p) + 4) & ~(size_t)3;
	if (crc_off + 4 > data->d_size)
		return NULL;
	memcpy(&crc, p + crc_off, 4);
	if (elf_getident(elf, NULL) && (elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB) !=
					   (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		crc = __builtin_bswap32(crc);
	if (ret_crc)
		*ret_crc = crc;
	return p;
}

const char *prec_elf_altlink(Elf *elf, const uint8_t **ret_bid, size_t *ret_bid_len)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_by_name(elf, ".gnu_debugaltlink", &sh, NULL);
	Elf_Data *data = scn ? section_bytes(scn, &sh) : NULL;
	const char *p, *nul;

	if (!data)
		return NULL;
	p = data->d_buf;
	nul = memchr(p, 0, data->d_size);
	if (!nul || nul == p)
		return NULL;
	*ret_bid = (const uint8_t *)nul + 1;
	*ret_bid_len = data->d_size - (size_t)(nul + 1 - p);
	return p;
}

int prec_elf_crc32(Elf *elf, uint32_t *ret)
{
	static uint32_t table[256];
	const unsigned char *p;
	size_t size, i;
	uint32_t crc = 0xffffffffu;

	p = (const unsigned char *)elf_rawfile(elf, &size);
	if (!p)
		return -EBADMSG;
	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			uint32_t c = (uint32_t)i;
			int k;

			for (k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	for (i = 0; i < size; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	*ret = crc ^ 0xffffffffu;
	return 0;
}

/* ---- program headers ---- */

static int load_segments(struct prec_dso *d, struct prec_elf *pe, bool from_debug_file)
{
	size_t phnum, i;
	struct prec_seg *segs;
	uint32_t n = 0;
	bool offsets_lost = false;
	uint64_t delta = 0;
	bool have_delta = false;

	if (elf_getphdrnum(pe->elf, &phnum) || !phnum)
		return 0;
	if (phnum > 65535)
		return -EBADMSG;
	segs = calloc(phnum, sizeof(*segs));
	if (!segs)
		return -ENOMEM;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(pe->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!have_delta) {
			delta = ph.p_vaddr - ph.p_offset;
			have_delta = true;
		}
		if ((ph.p_flags & PF_X) && !ph.p_filesz && ph.p_memsz)
			offsets_lost = true;
		segs[n].off = ph.p_offset;
		segs[n].filesz = ph.p_filesz;
		segs[n].vaddr = ph.p_vaddr;
		if (segs[n].off + segs[n].filesz < segs[n].off)
			segs[n].filesz = UINT64_MAX - segs[n].off;
		if (ph.p_filesz)
			n++;
	}
	/*
	 * A separate debug file keeps the program headers but zeroes the file sizes (and often
	 * offsets) of the segments it dropped.  When that is all we have, assume the usual layout
	 * where every segment sits at vaddr - (first segment's vaddr - offset): exact for the text
	 * of GNU ld and lld outputs, which is where samples are.
	 */
	if (from_debug_file && offsets_lost && have_delta) {
		segs[0].off = 0;
		segs[0].filesz = UINT64_MAX;
		segs[0].vaddr = delta;
		n = 1;
	}
	if (!n) {
		free(segs);
		return 0;
	}
	d->segs = segs;
	d->nsegs = n;
	return 0;
}

/* ---- symbols ---- */

enum { SEC_ALLOC = 1, SEC_TEXT_OR_DATA = 2 };

static uint8_t *section_flags(Elf *elf, size_t *ret_n)
{
	size_t shnum, shstrndx, i;
	uint8_t *f;

	if (elf_getshdrnum(elf, &shnum) || elf_getshdrstrndx(elf, &shstrndx) || !shnum)
		return NULL;
	f = calloc(shnum, 1);
	if (!f)
		return NULL;
	for (i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;
		const char *name;

		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_flags & SHF_ALLOC)
			f[i] |= SEC_ALLOC;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && (strstr(name, "text") || strstr(name, "data")))
			f[i] |= SEC_TEXT_OR_DATA;
	}
	*ret_n = shnum;
	return f;
}

/* A symbol table's string table, with the bound past which names are not terminated. */
static const char *symbol_strings(Elf *elf, const GElf_Shdr *symsh, size_t *ret_limit)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf_Data *data;
	const char *s;
	size_t n;

	scn = elf_getscn(elf, symsh->sh_link);
	if (!symsh->sh_link || !scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_STRTAB)
		return NULL;
	data = section_bytes(scn, &sh);
	if (!data)
		return NULL;
	s = data->d_buf;
	n = data->d_size;
	while (n && s[n - 1])
		n--;
	*ret_limit = n; /* offsets below n reach a NUL within the table */
	return n ? s : NULL;
}

static bool arm_mapping_symbol(const char *name)
{
	return name[0] == '$' && name[1] && strchr("adtx", name[1]) &&
	       (name[2] == 0 || name[2] == '.');
}

struct symread {
	Elf_Data *data;
	bool is64;
	size_t n;
};

/*
 * Whether section `sh` holds more than `max` entries of `type`.  Asked of the header before
 * elf_getdata(), which reads the whole section and, in a file of the other byte order, makes
 * a converted copy: a crafted 4 GiB .symtab cost 8 GiB before a count was checked.
 */
static bool too_many(Elf *elf, const GElf_Shdr *sh, Elf_Type type, size_t max)
{
	size_t ent = gelf_fsize(elf, type, 1, EV_CURRENT);

	return !ent || sh->sh_size / ent > max;
}

/* The symbols of section `scn` (header `sh`): 1, 0 when unreadable, -E2BIG when more than
 * PREC_SYMS_MAX. */
static int symread_init(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct symread *sr)
{
	Elf_Data *data;

	if (too_many(elf, sh, ELF_T_SYM, PREC_SYMS_MAX))
		return -E2BIG;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || data->d_type != ELF_T_SYM)
		return 0;
	sr->data = data;
	sr->is64 = gelf_getclass(elf) == ELFCLASS64;
	sr->n = data->d_size / (sr->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym));
	return 1;
}

static inline void symread_get(const struct symread *sr, size_t i, GElf_Sym *s)
{
	if (sr->is64) {
		*s = ((const Elf64_Sym *)sr->data->d_buf)[i];
	} else {
		const Elf32_Sym *s32 = (const Elf32_Sym *)sr->data->d_buf + i;

		s->st_name = s32->st_name;
		s->st_value = s32->st_value;
		s->st_size = s32->st_size;
		s->st_info = s32->st_info;
		s->st_other = s32->st_other;
		s->st_shndx = s32->st_shndx;
	}
}

/* A walk over the symbols of one table that prec_elf_load_syms() keeps. */
struct symwalk {
	const char *strs;
	size_t limit, nflags, i;
	uint8_t *flags;
	struct symread sr;
	uint16_t machine;
};

/* 1 ready, 0 nothing to walk, -ENOMEM or -E2BIG (then nothing to release). */
static int symwalk_init(struct symwalk *w, Elf *elf, uint16_t machine, Elf_Scn *symscn,
			const GElf_Shdr *symsh)
{
	int err;

	memset(w, 0, sizeof(*w));
	w->machine = machine;
	w->i = 1;
	w->strs = symbol_strings(elf, symsh, &w->limit);
	if (!w->strs)
		return 0;
	err = symread_init(elf, symscn, symsh, &w->sr);
	if (err <= 0)
		return err;
	w->flags = section_flags(elf, &w->nflags);
	return w->flags ? 1 : -ENOMEM;
}

/* The next symbol kept, its st_value the function's address, and its name. */
static bool symwalk_next(struct symwalk *w, GElf_Sym *ret, const char **ret_name)
{
	bool arm = w->machine == EM_ARM || w->machine == EM_AARCH64;

	while (w->i < w->sr.n) {
		GElf_Sym s;
		unsigned type, vis;
		const char *name;
		bool label;

		symread_get(&w->sr, w->i++, &s);
		type = GELF_ST_TYPE(s.st_info);
		vis = GELF_ST_VISIBILITY(s.st_other);
		if (!s.st_name || s.st_name >= w->limit || s.st_shndx == SHN_UNDEF ||
		    s.st_shndx >= SHN_LORESERVE || s.st_shndx >= w->nflags)
			continue;
		label = type == STT_NOTYPE && vis != STV_HIDDEN && vis != STV_INTERNAL;
		if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT && !label)
			continue;
		if (!(w->flags[s.st_shndx] & SEC_ALLOC))
			continue;
		if (label && !(w->flags[s.st_shndx] & SEC_TEXT_OR_DATA))
			continue;
		/* the name is not read here: touching every name faulted in the whole string
		 * table (like perf, an st_name past 0 is enough) */
		name = w->strs + s.st_name;
		if (arm && arm_mapping_symbol(name))
			continue;
		if (w->machine == EM_ARM && type == STT_FUNC && (s.st_value & 1))
			s.st_value--;
		*ret = s;
		*ret_name = name;
		return true;
	}
	return false;
}

static void symwalk_release(struct symwalk *w)
{
	free(w->flags);
}

static int read_symbols(struct prec_elf *pe, Elf_Scn *symscn, const GElf_Shdr *symsh,
			struct prec_symvec *sv)
{
	struct symwalk w;
	GElf_Sym s;
	const char *name;
	int err;

	err = symwalk_init(&w, pe->elf, pe->ehdr.e_machine, symscn, symsh);
	if (err <= 0)
		return err;
	err = prec_symvec__reserve(sv, (uint32_t)w.sr.n);
	while (!err && symwalk_next(&w, &s, &name))
		err = prec_symvec__push(sv, s.st_value, s.st_size, name, GELF_ST_BIND(s.st_info));
	symwalk_release(&w);
	return err;
}

/* The tables of elf: the first SHT_SYMTAB and the first SHT_DYNSYM, NULL when none. */
static void symbol_tables(Elf *elf, Elf_Scn **ret_symtab, GElf_Shdr *ret_symtab_sh,
			  Elf_Scn **ret_dynsym, GElf_Shdr *ret_dynsym_sh)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*ret_symtab = NULL;
	*ret_dynsym = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !*ret_symtab) {
			*ret_symtab = scn;
			*ret_symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !*ret_dynsym) {
			*ret_dynsym = scn;
			*ret_dynsym_sh = sh;
		}
	}
}

/* Whether `name` demangles to `want`. */
static bool demangles_to(const char *name, const char *want)
{
	char *dm = prec_demangle(name);
	bool same = dm && !strcmp(dm, want);

	free(dm);
	return same;
}

/* How far linkage_names_in() got with a start. */
enum { LN_NONE, LN_ONE, LN_CHECKED, LN_FOUND };

/*
 * The linkage names of one table (see prec_elf_linkage_names()): whether it has symbols.
 * The only symbol kept at a start is the one whose name was shown; where aliases share it,
 * the one that demangles to that name.  (Demangling every one was most of the cost.)
 * state[i]: LN_ONE, ret[i] is the only one seen; LN_CHECKED, none seen demangles to want[i].
 */
static bool linkage_names_in(Elf *elf, uint16_t machine, Elf_Scn *scn, const GElf_Shdr *sh,
			     const uint64_t *starts, const char *const *want, size_t n,
			     const char **ret, uint8_t *state)
{
	struct symwalk w;
	GElf_Sym s;
	const char *name;
	bool any = false;

	if (symwalk_init(&w, elf, machine, scn, sh) <= 0)
		return false;
	while (symwalk_next(&w, &s, &name)) {
		size_t lo = 0, hi = n;

		any = true;
		if (s.st_value < starts[0] || s.st_value > starts[n - 1])
			continue;
		while (lo < hi) { /* the first start >= st_value */
			size_t mid = lo + (hi - lo) / 2;

			if (starts[mid] < s.st_value)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && starts[lo] == s.st_value; lo++) {
			if (!want[lo] || state[lo] == LN_FOUND)
				continue;
			if (state[lo] == LN_NONE) {
				ret[lo] = name;
				state[lo] = LN_ONE;
				continue;
			}
			if (state[lo] == LN_ONE && demangles_to(ret[lo], want[lo])) {
				state[lo] = LN_FOUND;
				continue;
			}
			ret[lo] = demangles_to(name, want[lo]) ? name : NULL;
			state[lo] = ret[lo] ? LN_FOUND : LN_CHECKED;
		}
	}
	symwalk_release(&w);
	return any;
}

void prec_elf_linkage_names(struct prec_dso *d, const uint64_t *starts, const char *const *want,
			    size_t n, const char **ret)
{
	Elf_Scn *symtab, *dynsym;
	GElf_Shdr symtab_sh, dynsym_sh;
	GElf_Ehdr eh;
	uint8_t *state = calloc(n, sizeof(*state));

	if (!state || !gelf_getehdr(d->elf, &eh))
		goto out;
	symbol_tables(d->elf, &symtab, &symtab_sh, &dynsym, &dynsym_sh);
	/* the table prec_elf_load_syms() read: .symtab, else .dynsym */
	if (symtab &&
	    linkage_names_in(d->elf, eh.e_machine, symtab, &symtab_sh, starts, want, n, ret, state))
		goto out;
	if (dynsym)
		linkage_names_in(d->elf, eh.e_machine, dynsym, &dynsym_sh, starts, want, n, ret,
				 state);
out:
	free(state);
}

/* ---- PLT ---- */

static bool plt_sizes(const GElf_Ehdr *eh, const GElf_Shdr *plt, uint64_t *ret_hdr,
		      uint64_t *ret_ent)
{
	switch (eh->e_machine) {
	case EM_ARM:
		*ret_hdr = 20;
		*ret_ent = 12;
		return true;
	case EM_AARCH64:
	case EM_LOONGARCH:
		*ret_hdr = 32;
		*ret_ent = 16;
		return true;
	case EM_386:
	case EM_X86_64:
		*ret_ent = plt->sh_entsize;
		if (*ret_ent != 8 && *ret_ent != 16)
			*ret_ent = plt->sh_addralign == 8 ? 8 : 16;
		*ret_hdr = *ret_ent;
		return true;
	default:
		*ret_hdr = *ret_ent = plt->sh_entsize;
		return *ret_ent != 0;
	}
}

struct relent {
	uint64_t offset;
	uint64_t addend;
	uint32_t sym;
	uint32_t type;
};

static int relent_cmp(const void *a, const void *b)
{
	const struct relent *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The symbol starting exactly at `vaddr` among the sorted ELF symbols, for IFUNC PLT names. */
static const char *name_at(const struct prec_symvec *sv, uint32_t n, uint64_t vaddr)
{
	uint32_t lo = prec_syments_lower_bound(sv->v, n, vaddr);

	return lo < n && sv->v[lo].start == vaddr ? sv->v[lo].name : NULL;
}

/*
 * perf's name@plt symbols: one per .rela.plt/.rel.plt entry, in .plt.sec when there is one
 * (x86 with IBT) else in .plt after its header, plus a ".plt" symbol for the header (or the
 * whole .plt when .plt.sec holds the entries).  A symbol that fixup_end stretched over the
 * start of .plt is cut there first.  Names go to the symtab's string set.
 */
static int synth_plt(struct prec_dso *d, struct prec_elf *rt, struct prec_symvec *sv)
{
	GElf_Shdr plt, pltsec, rel, dsym;
	Elf_Scn *scn_plt, *scn_pltsec = NULL, *scn_rel, *scn_dsym;
	bool x86 = rt->ehdr.e_machine == EM_X86_64 || rt->ehdr.e_machine == EM_386;
	bool lazy = true, rela;
	uint64_t hdr, ent, pos, lim, base_off;
	const char *strs;
	size_t limit, nrel, i;
	struct relent *rels = NULL;
	struct symread sr;
	Elf_Data *reldata;
	uint32_t j, n0 = sv->n;
	char buf[512];
	int err = 0;

	scn_plt = section_by_name(rt->elf, ".plt", &plt, NULL);
	if (!scn_plt || plt.sh_type == SHT_NOBITS || !plt.sh_size)
		return 0;
	if (!plt_sizes(&rt->ehdr, &plt, &hdr, &ent))
		return 0;
	for (j = 0; j < n0; j++)
		if (sv->v[j].start < plt.sh_addr && sv->v[j].end > plt.sh_addr)
			sv->v[j].end = plt.sh_addr;
	pos = plt.sh_addr;
	lim = plt.sh_addr + plt.sh_size;
	base_off = plt.sh_offset - plt.sh_addr;
	if (x86)
		scn_pltsec = section_by_name(rt->elf, ".plt.sec", &pltsec, NULL);
	if (scn_pltsec && pltsec.sh_type != SHT_NOBITS && pltsec.sh_size) {
		if (!plt_sizes(&rt->ehdr, &pltsec, &hdr, &ent))
			return 0;
		err = prec_symvec__push(sv, plt.sh_addr, plt.sh_size, ".plt", STB_GLOBAL);
		pos = pltsec.sh_addr;
		lim = pltsec.sh_addr + pltsec.sh_size;
		base_off = pltsec.sh_offset - pltsec.sh_addr;
		lazy = false;
	}
	if (err)
		return err;

	scn_rel = section_by_name(rt->elf, ".rela.plt", &rel, NULL);
	if (!scn_rel)
		scn_rel = section_by_name(rt->elf, ".rel.plt", &rel, NULL);
	if (!scn_rel || (rel.sh_type != SHT_RELA && rel.sh_type != SHT_REL) || !rel.sh_link)
		goto header_only;
	rela = rel.sh_type == SHT_RELA;
	scn_dsym = elf_getscn(rt->elf, rel.sh_link);
	if (!scn_dsym || !gelf_getshdr(scn_dsym, &dsym) ||
	    (dsym.sh_type != SHT_DYNSYM && dsym.sh_type != SHT_SYMTAB))
		goto header_only;
	strs = symbol_strings(rt->elf, &dsym, &limit);
	if (!strs || too_many(rt->elf, &rel, rela ? ELF_T_RELA : ELF_T_REL, PREC_SYMS_MAX) ||
	    symread_init(rt->elf, scn_dsym, &dsym, &sr) <= 0)
		goto header_only;
	reldata = elf_getdata(scn_rel, NULL);
	if (!reldata || !reldata->d_buf)
		goto header_only;
	nrel = reldata->d_size / gelf_fsize(rt->elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	if (!nrel || nrel > PREC_SYMS_MAX)
		goto header_only;
	if (lazy) {
		if (nrel * ent != plt.sh_size)
			pos += hdr;
		else
			lazy = false; /* no header */
	}
	if (lazy) {
		err = prec_symvec__push(sv, plt.sh_addr, hdr, ".plt", STB_GLOBAL);
		if (err)
			return err;
	}
	rels = calloc(nrel, sizeof(*rels));
	if (!rels)
		return -ENOMEM;
	for (i = 0; i < nrel; i++) {
		if (rela) {
			GElf_Rela r;

			if (!gelf_getrela(reldata, (int)i, &r))
				break;
			rels[i].offset = r.r_offset;
			rels[i].addend = (uint64_t)r.r_addend;
			rels[i].sym = (uint32_t)GELF_R_SYM(r.r_info);
			rels[i].type = (uint32_t)GELF_R_TYPE(r.r_info);
		} else {
			GElf_Rel r;

			if (!gelf_getrel(reldata, (int)i, &r))
				break;
			rels[i].offset = r.r_offset;
			rels[i].sym = (uint32_t)GELF_R_SYM(r.r_info);
			rels[i].type = (uint32_t)GELF_R_TYPE(r.r_info);
		}
	}
	nrel = i;
	/* x86 linkers put IRELATIVE relocations last, not in PLT order; GOT order is PLT order */
	if (x86)
		qsort(rels, nrel, sizeof(*rels), relent_cmp);
	for (i = 0; i < nrel && pos + ent <= lim && pos + ent > pos; i++, pos += ent) {
		const char *name = NULL, *iname;
		GElf_Sym s;

		if (rels[i].sym && rels[i].sym < sr.n) {
			symread_get(&sr, rels[i].sym, &s);
			if (s.st_name < limit && strs[s.st_name])
				name = strs + s.st_name;
		}
		if (name) {
			snprintf(buf, sizeof(buf), "%s@plt", name);
		} else if (rt->ehdr.e_machine == EM_X86_64 && rela &&
			   rels[i].type == R_X86_64_IRELATIVE &&
			   (iname = name_at(sv, n0, rels[i].addend))) {
			snprintf(buf, sizeof(buf), "%s@plt", iname);
		} else {
			snprintf(buf, sizeof(buf), "offset_%#" PRIx64 "@plt", pos + base_off);
		}
		name = prec_symtab__intern(d->st, buf);
		if (!name) {
			err = -ENOMEM;
			break;
		}
		err = prec_symvec__push(sv, pos, ent, name, STB_GLOBAL);
		if (err)
			break;
	}
	free(rels);
	return err;

header_only:
	if (lazy)
		return prec_symvec__push(sv, plt.sh_addr, hdr, ".plt", STB_GLOBAL);
	return 0;
}

int prec_elf_load_syms(struct prec_dso *d, struct prec_elf *syms, struct prec_elf *runtime)
{
	struct prec_symvec sv = { 0 };
	Elf_Scn *symtab, *dynsym;
	GElf_Shdr symtab_sh, dynsym_sh;
	int err;

	symbol_tables(syms->elf, &symtab, &symtab_sh, &dynsym, &dynsym_sh);
	err = load_segments(d, runtime ? runtime : syms, !runtime);
	if (err)
		return err;
	if (symtab)
		err = read_symbols(syms, symtab, &symtab_sh, &sv);
	if (!err && !sv.n && dynsym)
		err = read_symbols(syms, dynsym, &dynsym_sh, &sv);
	if (err)
		goto out;
	prec_symvec__sort(&sv);
	prec_symvec__fixup_end(&sv, false);
	prec_symvec__dedup(&sv);
	if (runtime) {
		uint32_t n0 = sv.n;

		err = synth_plt(d, runtime, &sv);
		if (err)
			goto out;
		if (sv.n != n0)
			prec_symvec__sort(&sv);
	}
	prec_symvec__link(&sv);
	d->syms = sv.v;
	d->nsyms = sv.n;
	return 0;
out:
	prec_symvec__release(&sv);
	return err;
}
