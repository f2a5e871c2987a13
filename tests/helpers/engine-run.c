// SPDX-License-Identifier: MIT
/*
 * engine-run: a thin driver of lib/engine for tests and the benchmark.
 *
 * Prints one "sample ..." line per interval and a final "result {...}" line
 * (one JSON object).  Exit status: 0 the run ended normally, 1 an I/O error
 * stopped it or errors were counted, 2 bad parameters (message on stderr,
 * nothing was written), 3 the engine could not start.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "engine.h"
#include "parse.h"

static struct engine *running;

static void on_signal(int sig)
{
	(void)sig;
	if (running)
		engine_stop(running);
}

struct ctx {
	bool quiet;
	uint64_t sample_ios;
	uint64_t sample_errors;
};

static int print_sample(void *arg, const struct sample *s, const struct engine_progress *p)
{
	struct ctx *c = arg;
	const struct sample_stats *a = &s->st[SAMPLE_ALL];
	double secs = (double)(s->end_ns - s->start_ns) / 1e9;

	c->sample_ios += a->ios;
	c->sample_errors += s->errors;
	if (c->quiet)
		return 0;
	printf("sample seq=%lld dur=%.3f ios=%llu rd_ios=%llu wr_ios=%llu iops=%.1f mbps=%.2f "
	       "lat_mean_us=%.1f p50_us=%.1f p99_us=%.1f max_us=%.1f errors=%llu stream=%llu "
	       "final=%d\n",
	       (long long)s->seq, secs, (unsigned long long)a->ios,
	       (unsigned long long)s->st[SAMPLE_READ].ios,
	       (unsigned long long)s->st[SAMPLE_WRITE].ios, sample_metric(s, SAMPLE_METRIC_IOPS),
	       sample_metric(s, SAMPLE_METRIC_BW), a->lat_mean_ns / 1e3, a->lat_pct_ns[0] / 1e3,
	       a->lat_pct_ns[2] / 1e3, a->lat_max_ns / 1e3, (unsigned long long)s->errors,
	       (unsigned long long)p->stream_bytes, p->final);
	fflush(stdout);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: engine-run --target PATH (--profile NAME | --rw RW) [options]\n"
		"  --profile NAME     %s\n"
		"  --rw RW            read write randread randwrite rw randrw\n"
		"  --bssplit SPLIT    fio bssplit, e.g. 4k/60:64k/40 (also --bs 4k)\n"
		"  --rwmix PCT        percentage of reads\n"
		"  --threads N --iodepth N\n"
		"  --duration D --interval D (default 1s) --ramp D\n"
		"  --offset SIZE --size SIZE|PCT%% --align SIZE\n"
		"  --fill-passes N --resume BYTES --bytes BYTES --seed N\n"
		"  --on-error stop|continue --lba SIZE\n"
		"  --ring-flags auto|0xHEX --complete-min N --submit-batch N --no-register "
		"--quiet\n",
		profile_builtin_names());
}

static int die_usage(const char *what, const char *val)
{
	fprintf(stderr, "engine-run: %s '%s'\n", what, val);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"target", required_argument, NULL, 't'},
		{"profile", required_argument, NULL, 'p'},
		{"rw", required_argument, NULL, 'w'},
		{"bssplit", required_argument, NULL, 'b'},
		{"bs", required_argument, NULL, 'b'},
		{"rwmix", required_argument, NULL, 'm'},
		{"threads", required_argument, NULL, 'T'},
		{"iodepth", required_argument, NULL, 'Q'},
		{"duration", required_argument, NULL, 'd'},
		{"interval", required_argument, NULL, 'i'},
		{"ramp", required_argument, NULL, 'r'},
		{"offset", required_argument, NULL, 'o'},
		{"size", required_argument, NULL, 's'},
		{"align", required_argument, NULL, 'a'},
		{"fill-passes", required_argument, NULL, 'f'},
		{"resume", required_argument, NULL, 'R'},
		{"bytes", required_argument, NULL, 'B'},
		{"seed", required_argument, NULL, 'S'},
		{"on-error", required_argument, NULL, 'e'},
		{"lba", required_argument, NULL, 'l'},
		{"ring-flags", required_argument, NULL, 'F'},
		{"complete-min", required_argument, NULL, 'c'},
		{"submit-batch", required_argument, NULL, 'C'},
		{"no-register", no_argument, NULL, 'N'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	struct engine_job job = {
		.threads = 1,
		.iodepth = 1,
		.interval_ns = 1000000000ULL,
		.ring_flags = ENGINE_RING_FLAGS_AUTO,
		.on_error = ENGINE_ERROR_STOP,
	};
	const char *bssplit = NULL, *rwmix = NULL, *size_arg = NULL;
	struct ctx c = {0};
	struct engine_result *res;
	struct engine_target tgt;
	struct rusage ru0, ru1;
	struct engine *e;
	bool have_profile = false;
	char err[512];
	double pct = 0.0, secs, cpu_user, cpu_sys;
	uint64_t v, ios;
	int opt, r;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			job.path = optarg;
			break;
		case 'p':
			if (profile_builtin(optarg, &job.profile)) {
				fprintf(stderr,
					"engine-run: unknown profile '%s'; expected one of %s\n",
					optarg, profile_builtin_names());
				return 2;
			}
			have_profile = true;
			break;
		case 'w':
			if (!have_profile && profile_builtin("4k-randread", &job.profile))
				return 2;
			job.profile.name[0] = '\0';
			if (profile_parse_rw(optarg, &job.profile, err, sizeof(err))) {
				fprintf(stderr, "engine-run: %s\n", err);
				return 2;
			}
			have_profile = true;
			break;
		case 'b':
			bssplit = optarg;
			break;
		case 'm':
			rwmix = optarg;
			break;
		case 'T':
			if (parse_uint_range(optarg, 0, UINT32_MAX, &v))
				return die_usage("bad --threads", optarg);
			job.threads = (unsigned int)v;
			break;
		case 'Q':
			if (parse_uint_range(optarg, 0, UINT32_MAX, &v))
				return die_usage("bad --iodepth", optarg);
			job.iodepth = (unsigned int)v;
			break;
		case 'd':
			if (parse_duration_ns(optarg, &job.duration_ns))
				return die_usage("bad --duration", optarg);
			break;
		case 'i':
			if (parse_duration_ns(optarg, &job.interval_ns))
				return die_usage("bad --interval", optarg);
			break;
		case 'r':
			if (parse_duration_ns(optarg, &job.ramp_ns))
				return die_usage("bad --ramp", optarg);
			break;
		case 'o':
			if (parse_size(optarg, &job.offset_bytes))
				return die_usage("bad --offset", optarg);
			break;
		case 's':
			size_arg = optarg;
			break;
		case 'a':
			if (parse_size(optarg, &job.align_bytes))
				return die_usage("bad --align", optarg);
			break;
		case 'f':
			if (parse_uint_range(optarg, 0, UINT32_MAX, &v))
				return die_usage("bad --fill-passes", optarg);
			job.fill_passes = (unsigned int)v;
			break;
		case 'R':
			if (parse_size(optarg, &job.resume_bytes))
				return die_usage("bad --resume", optarg);
			break;
		case 'B':
			if (parse_size(optarg, &job.limit_bytes))
				return die_usage("bad --bytes", optarg);
			break;
		case 'S':
			if (parse_u64(optarg, &job.seed))
				return die_usage("bad --seed", optarg);
			break;
		case 'e':
			if (!strcmp(optarg, "stop"))
				job.on_error = ENGINE_ERROR_STOP;
			else if (!strcmp(optarg, "continue"))
				job.on_error = ENGINE_ERROR_CONTINUE;
			else
				return die_usage("--on-error: expected stop or continue, got",
						 optarg);
			break;
		case 'l':
			if (parse_size(optarg, &v) || v > UINT32_MAX)
				return die_usage("bad --lba", optarg);
			job.lba_bytes = (uint32_t)v;
			break;
		case 'F':
			if (!strcmp(optarg, "auto")) {
				job.ring_flags = ENGINE_RING_FLAGS_AUTO;
			} else {
				char *end;

				errno = 0;
				v = strtoull(optarg, &end, 0);
				if (errno || *end || end == optarg || v > INT32_MAX)
					return die_usage("bad --ring-flags", optarg);
				job.ring_flags = (int)v;
			}
			break;
		case 'c':
			if (parse_uint_range(optarg, 1, 4096, &v))
				return die_usage("bad --complete-min", optarg);
			job.complete_min = (unsigned int)v;
			break;
		case 'C':
			if (parse_uint_range(optarg, 1, 4096, &v))
				return die_usage("bad --submit-batch", optarg);
			job.submit_batch = (unsigned int)v;
			break;
		case 'N':
			job.no_register = true;
			break;
		case 'q':
			c.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !job.path || !have_profile) {
		usage(stderr);
		return 2;
	}
	if (bssplit && profile_parse_bssplit(bssplit, &job.profile, err, sizeof(err))) {
		fprintf(stderr, "engine-run: %s\n", err);
		return 2;
	}
	if (rwmix && profile_parse_rwmix(rwmix, &job.profile, err, sizeof(err))) {
		fprintf(stderr, "engine-run: %s\n", err);
		return 2;
	}
	if (size_arg) {
		size_t n = strlen(size_arg);

		if (n && size_arg[n - 1] == '%') {
			if (parse_percent(size_arg, false, &pct) || pct <= 0.0)
				return die_usage("bad --size", size_arg);
		} else if (parse_size(size_arg, &job.size_bytes)) {
			return die_usage("bad --size", size_arg);
		}
	}
	if (pct > 0.0) {
		/* a percentage of the target after --offset, as plans write it */
		r = engine_target_probe(job.path, &tgt);
		if (r) {
			fprintf(stderr, "engine-run: '%s': %s\n", job.path, strerror(-r));
			return 2;
		}
		if (engine_footprint(tgt.size_bytes, job.lba_bytes ? job.lba_bytes : tgt.lba_bytes,
				     job.offset_bytes, 0, pct, &job.size_bytes, err, sizeof(err))) {
			fprintf(stderr, "engine-run: '%s': %s\n", job.path, err);
			return 2;
		}
	}
	job.on_sample = print_sample;
	job.ctx = &c;

	r = engine_new(&job, &e, err, sizeof(err));
	if (r) {
		fprintf(stderr, "engine-run: %s\n", err);
		return 2;
	}
	res = calloc(1, sizeof(*res));
	if (!res) {
		engine_free(e);
		return 3;
	}
	running = e;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	getrusage(RUSAGE_SELF, &ru0);
	r = engine_run(e, res);
	getrusage(RUSAGE_SELF, &ru1);
	running = NULL;

	cpu_user = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
		   (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6;
	cpu_sys = (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
		  (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
	ios = res->ios[0] + res->ios[1];
	secs = (double)res->elapsed_ns / 1e9;
	{
		struct hist all;
		char bss[512] = "";
		size_t off = 0;
		const struct profile *p = engine_profile(e);

		hist_init(&all);
		hist_merge(&all, &res->hist[0]);
		hist_merge(&all, &res->hist[1]);
		for (unsigned int i = 0; i < p->nbs && off < sizeof(bss); i++)
			off += (size_t)snprintf(bss + off, sizeof(bss) - off, "%s%u:%llu",
						i ? "," : "", p->bs[i].size_bytes,
						(unsigned long long)res->bs_ios[i]);
		printf("result {\"ios\": %llu, \"read_ios\": %llu, \"write_ios\": %llu, "
		       "\"bytes\": %llu, \"elapsed_s\": %.6f, \"iops\": %.1f, \"mbps\": %.2f, "
		       "\"lat_mean_us\": %.2f, \"lat_p50_us\": %.2f, \"lat_p99_us\": %.2f, "
		       "\"cpu_user_s\": %.3f, \"cpu_sys_s\": %.3f, \"errors\": %llu, "
		       "\"first_errno\": %d, \"first_error_offset\": %llu, \"requeued_short\": "
		       "%llu, "
		       "\"requeued_again\": %llu, \"stop\": \"%s\", \"stream_bytes\": %llu, "
		       "\"samples\": %llu, \"sample_ios\": %llu, \"sample_errors\": %llu, "
		       "\"ring_flags\": \"0x%x\", \"registered_files\": %d, "
		       "\"registered_buffers\": %d, \"footprint_offset\": %llu, "
		       "\"footprint_bytes\": %llu, \"bs_ios\": \"%s\", \"rc\": %d, \"msg\": "
		       "\"%s\"}\n",
		       (unsigned long long)ios, (unsigned long long)res->ios[0],
		       (unsigned long long)res->ios[1],
		       (unsigned long long)(res->bytes[0] + res->bytes[1]), secs,
		       secs > 0 ? (double)ios / secs : 0.0,
		       secs > 0 ? (double)(res->bytes[0] + res->bytes[1]) / secs / 1e6 : 0.0,
		       hist_mean(&all) / 1e3, (double)hist_percentile(&all, 50.0) / 1e3,
		       (double)hist_percentile(&all, 99.0) / 1e3, cpu_user, cpu_sys,
		       (unsigned long long)res->errors, res->first_errno,
		       (unsigned long long)res->first_error_offset_bytes,
		       (unsigned long long)res->requeued_short,
		       (unsigned long long)res->requeued_again, engine_stop_reason_name(res->stop),
		       (unsigned long long)res->stream_bytes, (unsigned long long)res->samples,
		       (unsigned long long)c.sample_ios, (unsigned long long)c.sample_errors,
		       res->ring_flags, res->registered_files, res->registered_buffers,
		       (unsigned long long)engine_footprint_offset(e),
		       (unsigned long long)engine_footprint_bytes(e), bss, r, res->msg);
	}
	if (res->msg[0])
		fprintf(stderr, "engine-run: %s\n", res->msg);
	/* a failure with no I/O error behind it: the workers never ran */
	opt = r && !res->first_errno ? 3 : r || res->errors ? 1 : 0;
	engine_free(e);
	free(res);
	return opt;
}
