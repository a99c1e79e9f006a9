#!/bin/sh
# SPDX-License-Identifier: MIT
# precord records the workloads of tests/workloads/ whose profiles are known by construction,
# and Linux perf reports them.  Each is recorded with `precord -e cpu-clock -F 999 -g` for
# 1-2 s (2 s where a 5-point check must stay clear of sampling noise, about 1.4 points at
# 1000 samples).  For each file: precord exits 0 and prints its summary, perf report and perf
# script read it, preport -D reads it, and preport's record counts equal perf's.  Then:
#   demo      hot_a leads hot_b (75:25 quiet; 55-90% of the two); chains hot_a;outer;main and hot_b;outer;main
#   threads   thread_a 50%, thread_b 50%, each under the comm its thread set (COMM records),
#             each in one thread of its own: two tids of one pid; chains end in start_thread
#   forkexec  `forkexec 1000 demo 2000`: parent_work under comm forkexec; hot_a and hot_b
#             under comm demo in another pid (fork and exec followed), hot_a leads within
#             the child (75:25 on a quiet machine); chains reach main in both; FORK and COMM
#             records
#   libwork   lib_hot in libhot.so, local_work in libwork (a dlopen()ed library), at least
#             30% and 20% and together 95% (built for 60:40; the split varies on VMs);
#             chains lib_hot;main and local_work;main
#   deep      deep_leaf 100% (-5); its chains are deep_leaf, 40 x descend, main
# Skips when perf is missing or the kernel refuses perf_event_open.
. "$(dirname "$0")/test-lib.sh"
. "$(dirname "$0")/record-lib.sh"

need_record demo threads forkexec libwork deep
[ -f "$WL/libhot.so" ] || fail "the libhot.so of the libwork workload is missing: $WL/libhot.so"

# profile NAME WORKLOAD-ARGS...: record, and the checks every recording gets.
profile() {
	_name=$1
	shift
	say "--- $_name: precord -e cpu-clock -F 999 -g -- $*"
	f=$workdir/$_name.data
	record "$_name" -e cpu-clock -F 999 -g -o "$f" -- "$@"
	check_status "$_name" "$rec_rc" 0
	check_summary "$_name" "$workdir/$_name.err"
	preport_reads "$_name" "$f"
	counts_agree "$_name" "$f"
	perf_chains "$_name" "$f" "$f.chains"
}

# ---- demo ----
profile demo "$WL/demo" 2000
perf_report demo "$f" sym "$f.rep"
check_demo_split demo "$f.rep"
check_chains demo "$f.chains" hot_a '^hot_a;outer;main(;|$)'
check_chains demo "$f.chains" hot_b '^hot_b;outer;main(;|$)'

# ---- threads ----
profile threads "$WL/threads" 1000
perf_report threads "$f" comm,sym "$f.rep"
# 50:50 over the whole run on a quiet machine; each thread's share moves with the load
check_share_min threads "$f.rep" thread_a 25 thread_a
check_share_min threads "$f.rep" thread_b 25 thread_b
check_chains threads "$f.chains" thread_a '^thread_a;start_thread(;|$)'
check_chains threads "$f.chains" thread_b '^thread_b;start_thread(;|$)'
ta=$(leaf_values "$f.chains" thread_a 3)
tb=$(leaf_values "$f.chains" thread_b 3)
pids=$(awk '{ split($4, f, ";") } f[1] == "thread_a" || f[1] == "thread_b" { print $2 }' \
	"$f.chains" | sort -u)
if [ "$(echo "$ta" | grep -c .)" -eq 1 ] && [ "$(echo "$tb" | grep -c .)" -eq 1 ] &&
	[ "$ta" != "$tb" ] && [ "$(echo "$pids" | grep -c .)" -eq 1 ] &&
	[ "$ta" != "$pids" ] && [ "$tb" != "$pids" ]; then
	ok "threads: thread_a ran in tid $ta, thread_b in tid $tb, both threads of pid $pids"
else
	ta=$(echo "$ta" | tr '\n' ' ')
	tb=$(echo "$tb" | tr '\n' ' ')
	pids=$(echo "$pids" | tr '\n' ' ')
	bad "threads: thread_a in tids '$ta', thread_b in tids '$tb', pids '$pids'; want one tid each, two threads of one pid"
fi
n=$(count_of "$f.counts" COMM)
if [ "$n" -ge 3 ]; then
	ok "threads: $n COMM records (exec and the two thread names)"
else
	bad "threads: $n COMM records, want >= 3 (exec and the two thread names)"
fi

# ---- forkexec ----
profile forkexec "$WL/forkexec" 1000 "$WL/demo" 2000
perf_report forkexec "$f" comm,sym "$f.rep"
a=$(share "$f.rep" hot_a demo)
b=$(share "$f.rep" hot_b demo)
p=$(share "$f.rep" parent_work forkexec)
say "forkexec: parent_work $p%, demo's hot_a $a% and hot_b $b%"
if awk -v p="$p" 'BEGIN { exit !(p >= 10) }'; then
	ok "forkexec: parent_work in comm forkexec has $p% of the samples"
else
	bad "forkexec: parent_work in comm forkexec has $p% of the samples, want >= 10%"
fi
if awk -v a="$a" -v b="$b" 'BEGIN { exit !(a + b >= 10) }'; then
	ok "forkexec: the child's symbols hot_a and hot_b appear in comm demo ($a% + $b%)"
else
	bad "forkexec: the child's hot_a and hot_b have $a% + $b% in comm demo, want >= 10%"
fi
for s in hot_a hot_b parent_work; do
	c=$(leaf_values "$f.chains" $s 1 | tr '\n' ' ')
	want=demo
	[ $s = parent_work ] && want=forkexec
	if [ "$c" = "$want " ]; then
		ok "forkexec: every $s sample has comm $want"
	else
		bad "forkexec: $s samples have comms '$c', want only $want"
	fi
done
# The split is 75:25 on a quiet machine; on two busy cores it came out 68:32 once (make
# check beside seven builds), so only that hot_a clearly leads is asked.
within=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a + b > 0) printf "%.2f", 100 * a / (a + b); else print 0 }')
if awk -v w="$within" 'BEGIN { exit !(w >= 55 && w <= 90) }'; then
	ok "forkexec: within the child, hot_a has $within% (75% on a quiet machine; want 55-90%)"
else
	bad "forkexec: within the child, hot_a has $within%, want 55-90% (75% on a quiet machine)"
fi
pp=$(leaf_values "$f.chains" parent_work 2)
cp=$(leaf_values "$f.chains" hot_a 2)
if [ "$(echo "$pp" | grep -c .)" -eq 1 ] && [ "$(echo "$cp" | grep -c .)" -eq 1 ] &&
	[ "$pp" != "$cp" ]; then
	ok "forkexec: parent pid $pp, child pid $cp"
else
	bad "forkexec: parent_work in pids '$(echo "$pp" | tr '\n' ' ')', hot_a in pids '$(echo "$cp" | tr '\n' ' ')'; want one each, different"
fi
check_chains forkexec "$f.chains" parent_work '^parent_work;main(;|$)'
check_chains forkexec "$f.chains" hot_a '^hot_a;outer;main(;|$)'
n=$(count_of "$f.counts" FORK)
if [ "$n" -ge 1 ]; then
	ok "forkexec: $n FORK records"
else
	bad "forkexec: no FORK record"
fi

# ---- libwork ----
profile libwork "$WL/libwork" 2000
perf_report libwork "$f" dso,sym "$f.rep"
# built for 60:40, but on these VMs the split itself varies from run to run (perf record
# alone: 54-67%, 44% once; here 51.8:47.2 once): what is checked is that both functions are
# there, each in its own DSO, and that between them they have all the samples
check_share_min libwork "$f.rep" lib_hot 30 libhot.so
check_share_min libwork "$f.rep" local_work 20 libwork
share_verdict libwork "lib_hot and local_work together" \
	"$(awk -v a="$(share "$f.rep" lib_hot libhot.so)" -v b="$(share "$f.rep" local_work libwork)" \
		'BEGIN { printf "%.2f", a + b }')" "g >= 95" ">= 95%"
check_chains libwork "$f.chains" lib_hot '^lib_hot;main(;|$)'
check_chains libwork "$f.chains" local_work '^local_work;main(;|$)'

# ---- deep ----
profile deep "$WL/deep" 1000 40
perf_report deep "$f" sym "$f.rep"
check_share deep "$f.rep" deep_leaf 100
re='^deep_leaf;'
i=0
while [ $i -lt 40 ]; do
	re="${re}descend;"
	i=$((i + 1))
done
check_chains deep "$f.chains" deep_leaf "${re}main(;|\$)" 95 "deep_leaf;40 x descend;main"

finish
