/* SPDX-License-Identifier: MIT */
/*
 * A stream's wall clock: how its sample times map to wall-clock time.  perf record -k (and
 * precord) sample on a chosen clock (attr.use_clockid, attr.clockid, CLOCK_MONOTONIC as a
 * rule) and record in the CLOCK_DATA feature one moment read on both clocks: the wall-clock
 * time (ns since the epoch) and the same moment on that clock.  A sample at time t then
 * happened at wall-clock time tod_ns + (t - clock_ns).  That holds as long as the wall clock
 * was not stepped while recording, which is why each segment of a directory carries its own.
 */
#ifndef PREC_CLOCK_H
#define PREC_CLOCK_H

#include <stdint.h>

#include "prec_reader.h"

struct prec_clock {
	int32_t clockid;   /* the clock of the sample times (1: CLOCK_MONOTONIC) */
	uint64_t res_ns;   /* its resolution (the CLOCKID feature); 0 if not recorded */
	uint64_t tod_ns;   /* a wall-clock time, ns since the epoch (UTC), */
	uint64_t clock_ns; /* and the same moment on clockid */
};

/*
 * The wall clock of the stream r (in pipe form, after prec_reader__read_header()).
 * -ENODATA when it has no CLOCK_DATA feature; -EBADMSG when that feature is malformed (not 24
 * bytes of version 1) or does not describe the events' clock (an event without use_clockid,
 * or with another clockid): the times of such samples cannot be mapped.
 */
int prec_clock__from_stream(const struct prec_reader *r, struct prec_clock *ret);

/* Wall-clock time (ns since the epoch) of sample time t; saturates at 0 and UINT64_MAX. */
uint64_t prec_clock__wall(const struct prec_clock *c, uint64_t t);

/* The sample time at wall-clock time wall_ns; saturates at 0 and UINT64_MAX. */
uint64_t prec_clock__time(const struct prec_clock *c, uint64_t wall_ns);

#endif
