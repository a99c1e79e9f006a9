/* SPDX-License-Identifier: MIT */
/*
 * Unwinding of sampled user stacks (--call-graph dwarf) with the DSOs' call frame
 * information: libdw finds the CFI row for a pc (.eh_frame of the executable file, else
 * .debug_frame of the file with DWARF) and we evaluate its rules against the sampled
 * registers and the copy of the stack.  Nothing is read from the live process: a value that
 * lies outside the copy ends the unwinding there.
 *
 * x86-64 only (the register numbering below); one DSO's CFI is opened once, on the first pc
 * in it, and kept with the DSO.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "prec_symbol_int.h"

/* DWARF register numbers of x86-64 */
enum { R_RSP = 7, R_RBP = 6, R_RIP = 16 };

#define STACK_MAX 64 /* DWARF expression stack */

struct unwind_mem {
	const uint8_t *stack;
	uint64_t sp, len; /* the copy holds [sp, sp + len) */
	bool *past_end; /* set when a read went past the end of the copy */
};

static bool mem_read(const struct unwind_mem *m, uint64_t addr, uint64_t *ret)
{
	if (addr >= m->sp && (addr - m->sp > m->len || m->len - (addr - m->sp) < 8))
		*m->past_end = true; /* the caller's frames were beyond what was copied */
	if (addr < m->sp || addr - m->sp > m->len || m->len - (addr - m->sp) < 8)
		return false;
	memcpy(ret, m->stack + (addr - m->sp), 8);
	return true;
}

/* Evaluate a CFI expression; *is_value tells whether the result is the value itself
 * (DW_OP_stack_value, or a CFA rule) rather than the address where it is stored. */
static bool eval(const Dwarf_Op *ops, size_t nops, const struct prec_unwind_regs *regs,
		 uint64_t cfa, const struct unwind_mem *m, uint64_t *ret, bool *is_value)
{
	uint64_t st[STACK_MAX], a, b;
	size_t sp = 0, i;

	*is_value = false;
#define PUSH(v)                                                                                    \
	do {                                                                                       \
		if (sp == STACK_MAX)                                                               \
			return false;                                                              \
		st[sp++] = (v);                                                                    \
	} while (0)
#define POP(v)                                                                                     \
	do {                                                                                       \
		if (!sp)                                                                           \
			return false;                                                              \
		(v) = st[--sp];                                                                    \
	} while (0)
	for (i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];
		uint8_t at = op->atom;

		if (at >= DW_OP_lit0 && at <= DW_OP_lit31) {
			PUSH((uint64_t)(at - DW_OP_lit0));
		} else if (at >= DW_OP_breg0 && at <= DW_OP_breg31) {
			unsigned r = at - DW_OP_breg0;

			if (r >= PREC_UNWIND_NREGS || !(regs->valid & (1u << r)))
				return false;
			PUSH(regs->r[r] + op->number);
		} else {
			switch (at) {
			case DW_OP_bregx:
				if (op->number >= PREC_UNWIND_NREGS ||
				    !(regs->valid & (1u << op->number)))
					return false;
				PUSH(regs->r[op->number] + op->number2);
				break;
			case DW_OP_const1u:
			case DW_OP_const1s:
			case DW_OP_const2u:
			case DW_OP_const2s:
			case DW_OP_const4u:
			case DW_OP_const4s:
			case DW_OP_const8u:
			case DW_OP_const8s:
			case DW_OP_constu:
			case DW_OP_consts:
				PUSH(op->number);
				break;
			case DW_OP_call_frame_cfa:
				PUSH(cfa);
				break;
			case DW_OP_deref:
				POP(a);
				if (!mem_read(m, a, &b))
					return false;
				PUSH(b);
				break;
			case DW_OP_dup:
				POP(a);
				PUSH(a);
				PUSH(a);
				break;
			case DW_OP_drop:
				POP(a);
				break;
			case DW_OP_over:
				if (sp < 2)
					return false;
				a = st[sp - 2];
				PUSH(a);
				break;
			case DW_OP_swap:
				POP(a);
				POP(b);
				PUSH(a);
				PUSH(b);
				break;
			case DW_OP_plus_uconst:
				POP(a);
				PUSH(a + op->number);
				break;
			case DW_OP_neg:
				POP(a);
				PUSH(-a);
				break;
			case DW_OP_not:
				POP(a);
				PUSH(~a);
				break;
			case DW_OP_plus:
			case DW_OP_minus:
			case DW_OP_mul:
			case DW_OP_and:
			case DW_OP_or:
			case DW_OP_xor:
			case DW_OP_shl:
			case DW_OP_shr:
			case DW_OP_shra:
			case DW_OP_eq:
			case DW_OP_ne:
			case DW_OP_lt:
			case DW_OP_le:
			case DW_OP_gt:
			case DW_OP_ge:
				POP(b);
				POP(a);
				switch (at) {
				case DW_OP_plus: a += b; break;
				case DW_OP_minus: a -= b; break;
				case DW_OP_mul: a *= b; break;
				case DW_OP_and: a &= b; break;
				case DW_OP_or: a |= b; break;
				case DW_OP_xor: a ^= b; break;
				case DW_OP_shl: a = b < 64 ? a << b : 0; break;
				case DW_OP_shr: a = b < 64 ? a >> b : 0; break;
				case DW_OP_shra:
					a = (uint64_t)((int64_t)a >> (b < 63 ? b : 63));
					break;
				/* comparisons are signed, as DWARF says */
				case DW_OP_eq: a = a == b; break;
				case DW_OP_ne: a = a != b; break;
				case DW_OP_lt: a = (int64_t)a < (int64_t)b; break;
				case DW_OP_le: a = (int64_t)a <= (int64_t)b; break;
				case DW_OP_gt: a = (int64_t)a > (int64_t)b; break;
				default: a = (int64_t)a >= (int64_t)b; break;
				}
				PUSH(a);
				break;
			case DW_OP_nop:
				break;
			case DW_OP_stack_value:
				if (i + 1 != nops)
					return false;
				*is_value = true;
				break;
			default:
				return false; /* not seen in CFI of x86-64 code */
			}
		}
	}
#undef PUSH
#undef POP
	if (!sp)
		return false;
	*ret = st[sp - 1];
	return true;
}

/* The CFI of d, opened the first time: .eh_frame of the executable file (what the program
 * itself unwinds with), else .debug_frame of the file with DWARF; NULL when none. */
static Dwarf_CFI *dso_cfi(struct prec_dso *d)
{
	if (d->cfi_tried)
		return d->cfi;
	d->cfi_tried = true;
	if (prec_dso__status(d) != PREC_DSO_OK)
		return NULL;
	if (d->kind == PREC_DSO_KIND_VDSO ||
	    (d->runtime_path && d->file_used && !strcmp(d->runtime_path, d->file_used))) {
		d->cfi = dwarf_getcfi_elf(d->elf);
	} else if (d->runtime_path) {
		if (prec_elf_open(d->runtime_path, &d->cfi_file) == PREC_OPEN_OK)
			d->cfi = dwarf_getcfi_elf(d->cfi_file.elf);
	}
	if (!d->cfi && d->elf && !prec_dwarf__open(d))
		d->debug_cfi = prec_dwarf__cfi(d->dwarf);
	return d->cfi ? d->cfi : d->debug_cfi;
}

void prec_dso__cfi_free(struct prec_dso *d)
{
	if (d->cfi)
		dwarf_cfi_end(d->cfi);
	prec_elf_close(&d->cfi_file);
}

/* Register r of the caller by frame fr's rule, into *ret; false when it cannot be known
 * (undefined, a same-value register we did not know, a value outside the stack copy). */
static bool caller_reg(Dwarf_Frame *fr, int r, const struct prec_unwind_regs *regs, uint64_t cfa,
		       const struct unwind_mem *m, uint64_t *ret)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	uint64_t v;
	bool is_value;

	if (dwarf_frame_register(fr, r, mem, &ops, &nops))
		return false;
	if (!nops) {
		if (ops) /* undefined */
			return false;
		if (!(regs->valid & (1u << r))) /* same value, which we do not know */
			return false;
		*ret = regs->r[r];
		return true;
	}
	if (!eval(ops, nops, regs, cfa, m, &v, &is_value))
		return false;
	if (!is_value && !mem_read(m, v, &v))
		return false;
	*ret = v;
	return true;
}

size_t prec_unwind(const struct prec_unwind_regs *start, const void *stack, uint64_t stack_len,
		   prec_unwind_find_fn find, void *arg, uint64_t *pcs, size_t max,
		   bool *ret_truncated)
{
	/* the registers a caller's frame can be recovered from on x86-64: callee-saved ones */
	static const int saved[] = { 3, R_RBP, 12, 13, 14, 15 };
	struct prec_unwind_regs regs = *start, next;
	bool past_end = false;
	struct unwind_mem m = { stack, start->r[R_RSP], stack_len, &past_end };
	size_t n = 0, i;

	if (ret_truncated)
		*ret_truncated = false;
	if (!max || !(regs.valid & (1u << R_RIP)))
		return 0;
	pcs[n++] = regs.r[R_RIP];
	if (!(regs.valid & (1u << R_RSP)))
		return n;
	while (n < max) {
		uint64_t pc = regs.r[R_RIP], off, cfa, ra;
		struct prec_dso *d = find(arg, pc, &off);
		Dwarf_CFI *cfi = d ? dso_cfi(d) : NULL;
		Dwarf_Frame *fr;
		Dwarf_Op *ops;
		size_t nops;
		bool is_value, ok;

		if (!cfi)
			break;
		/* a return address is looked up in its call instruction */
		off = prec_dso__off_to_vaddr(d, off) - (n > 1 ? 1 : 0);
		if (dwarf_cfi_addrframe(cfi, off, &fr))
			break;
		past_end = false;
		ok = !dwarf_frame_cfa(fr, &ops, &nops) && nops &&
		     eval(ops, nops, &regs, 0, &m, &cfa, &is_value) &&
		     caller_reg(fr, dwarf_frame_info(fr, NULL, NULL, NULL), &regs, cfa, &m, &ra);
		if (ok) {
			memset(&next, 0, sizeof(next));
			for (i = 0; i < sizeof(saved) / sizeof(saved[0]); i++)
				if (caller_reg(fr, saved[i], &regs, cfa, &m, &next.r[saved[i]]))
					next.valid |= 1u << saved[i];
		}
		free(fr);
		/* the caller's stack pointer is the CFA: it must move up the stack */
		if (!ok || !ra || cfa <= regs.r[R_RSP]) {
			if (!ok && ret_truncated)
				*ret_truncated = past_end;
			break;
		}
		next.r[R_RSP] = cfa;
		next.r[R_RIP] = ra;
		next.valid |= 1u << R_RSP | 1u << R_RIP;
		regs = next;
		pcs[n++] = ra;
	}
	return n;
}

int prec_unwind_regs_x86_64(struct prec_unwind_regs *ret, uint64_t mask, const uint64_t *vals)
{
	/* perf's x86 register indexes (asm/perf_regs.h) -> DWARF numbers; -1: not kept */
	static const int8_t dwarf_of[24] = {
		0 /* ax */,  3 /* bx */,  2 /* cx */,  1 /* dx */,  4 /* si */,	5 /* di */,
		6 /* bp */,  7 /* sp */,  16 /* ip */, -1 /* flags */, -1 /* cs */, -1 /* ss */,
		-1 /* ds */, -1 /* es */, -1 /* fs */, -1 /* gs */,  8 /* r8 */,  9,
		10,	     11,	  12,	       13,	  14,	      15 /* r15 */,
	};
	unsigned bit, k = 0;

	memset(ret, 0, sizeof(*ret));
	for (bit = 0; bit < 64; bit++) {
		if (!(mask & (1ULL << bit)))
			continue;
		if (bit < 24 && dwarf_of[bit] >= 0) {
			ret->r[dwarf_of[bit]] = vals[k];
			ret->valid |= 1u << dwarf_of[bit];
		}
		k++;
	}
	return (ret->valid & (1u << R_RIP | 1u << R_RSP)) == (1u << R_RIP | 1u << R_RSP) ? 0
											   : -EINVAL;
}
