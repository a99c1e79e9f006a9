/* SPDX-License-Identifier: MIT */
/*
 * The wall-clock mapping of a stream, from its CLOCKID and CLOCK_DATA features (see
 * prec_clock.h).  The feature is only believed when it describes the clock every event
 * sampled on: a mapping from another clock would put samples at wrong times silently.
 * Conversions saturate rather than wrap, so a range test on a converted bound stays right.
 */
#include <errno.h>
#include <string.h>

#include "prec_abi.h"
#include "prec_clock.h"

#define CLOCK_DATA_VERSION 1
#define CLOCK_DATA_SIZE 24 /* u32 version, u32 clockid, u64 tod_ns, u64 clock_ns */

int prec_clock__from_stream(const struct prec_reader *r, struct prec_clock *ret)
{
	struct prec_feat_cursor c = {0};
	struct prec_clock clk = {0};
	uint32_t version, clockid;
	size_t i, nev;
	int err;

	c.p = prec_reader__feature(r, PREC_FEAT_CLOCK_DATA, &c.len);
	if (!c.p)
		return -ENODATA;
	if (c.len != CLOCK_DATA_SIZE)
		return -EBADMSG;
	err = prec_feat__u32(&c, &version);
	if (!err)
		err = prec_feat__u32(&c, &clockid);
	if (!err)
		err = prec_feat__u64(&c, &clk.tod_ns);
	if (!err)
		err = prec_feat__u64(&c, &clk.clock_ns);
	if (err || version != CLOCK_DATA_VERSION || clockid > INT32_MAX)
		return -EBADMSG;
	clk.clockid = (int32_t)clockid;
	nev = prec_reader__nr_evsels(r);
	for (i = 0; i < nev; i++) {
		const struct perf_event_attr *a = &prec_reader__evsel(r, i)->attr;

		if (!a->use_clockid || a->clockid != clk.clockid)
			return -EBADMSG;
	}
	c.p = prec_reader__feature(r, PREC_FEAT_CLOCKID, &c.len);
	c.off = 0;
	if (c.p && prec_feat__u64(&c, &clk.res_ns))
		clk.res_ns = 0;
	*ret = clk;
	return 0;
}

uint64_t prec_clock__wall(const struct prec_clock *c, uint64_t t)
{
	if (t >= c->clock_ns) {
		uint64_t d = t - c->clock_ns;

		return d > UINT64_MAX - c->tod_ns ? UINT64_MAX : c->tod_ns + d;
	}
	return c->clock_ns - t > c->tod_ns ? 0 : c->tod_ns - (c->clock_ns - t);
}

uint64_t prec_clock__time(const struct prec_clock *c, uint64_t wall_ns)
{
	if (wall_ns >= c->tod_ns) {
		uint64_t d = wall_ns - c->tod_ns;

		return d > UINT64_MAX - c->clock_ns ? UINT64_MAX : c->clock_ns + d;
	}
	return c->tod_ns - wall_ns > c->clock_ns ? 0 : c->clock_ns - (c->tod_ns - wall_ns);
}
