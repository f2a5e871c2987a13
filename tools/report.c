// SPDX-License-Identifier: MIT
/*
 * report: `plateau report RUN [RUN ...] -o FILE.html`.
 *
 * One self-contained HTML file: the text and the tables are HTML written
 * here (readable and printable without JavaScript); the curves go into one
 * JSON document in the page, which tools/assets/report.js draws with uPlot
 * (tools/assets/uPlot.*, MIT, inlined with its license).  Nothing is fetched:
 * the page opens from disk.
 *
 * Trust boundary: every string from the database (names, plans, drive
 * identity, error texts, phase JSON) is escaped for HTML text, and in the
 * JSON every '<' is written as \u003c, so no value can close the <script>
 * element it sits in ("</script>") or open a comment ("<!--").
 *
 * The steady-state verdicts are those of `plateau steady`:
 * verdict_judge_phase() (lib/verdict.h) with the phase's own parameters.  The time charts are
 * bounded in size: a phase with more than REP_BUCKETS samples is drawn from the minimum and the
 * maximum of each of REP_BUCKETS consecutive spans (so peaks and dips survive), and the report says
 * so.  The verdicts and the tables always use every sample.
 *
 * The page is built in memory and written to a temporary file in the
 * target's directory, then renamed over it: a failed report never leaves a
 * half-written file.
 */
#include "report.h"

/* Okabe-Ito colours (distinguishable with the common colour-vision
 * deficiencies), plus a dash pattern per run for black-and-white prints. */
static const char *const rep_colors[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#555555", "#8c564b",
};
#define REP_NCOLORS (sizeof(rep_colors) / sizeof(rep_colors[0]))

/* --- page parts --- */

static ssize_t rep_nth(const struct rep_run *rr, const char *kind, size_t k)
{
	for (size_t i = 0; i < rr->nphases; i++)
		if (!strcmp(rr->phases[i].kind, kind) && !k--)
			return (ssize_t)i;
	return -1;
}

static size_t rep_count(const struct rep_run *rr, const char *kind)
{
	size_t n = 0;

	for (size_t i = 0; i < rr->nphases; i++)
		n += !strcmp(rr->phases[i].kind, kind);
	return n;
}

static void rep_swatch(FILE *f, const struct rep_run *rr)
{
	fprintf(f, "<span class=\"swatch\" style=\"background:%s\"></span>", rr->color);
}

static void rep_run_ref(FILE *f, const struct rep_run *rr)
{
	rep_swatch(f, rr);
	fprintf(f, "<a href=\"#run-%lld\">run %lld</a> ", (long long)rr->run.id,
		(long long)rr->run.id);
	h_esc(f, rr->run.name);
}

static void rep_chart(struct rep *R, const char *caption, const char *attrs)
{
	fputs("<figure class=\"chart\"><figcaption>", R->f);
	h_esc(R->f, caption);
	fprintf(R->f, "</figcaption><div class=\"plot\" %s></div></figure>\n", attrs);
	R->ncharts++;
}

static double rep_mean(const double *y, size_t from, size_t to)
{
	double s = 0;

	for (size_t i = from; i <= to; i++)
		s += y[i - 1];
	return s / (double)(to - from + 1);
}

static double rep_max(const double *y, size_t from, size_t to)
{
	double m = y[from - 1];

	for (size_t i = from; i <= to; i++)
		if (y[i - 1] > m)
			m = y[i - 1];
	return m;
}

/* The evidence table of one metric's window (as `plateau steady` prints it). */
static void rep_evidence(FILE *f, const struct rep_steady *st, size_t k,
			 const struct store_phase *p)
{
	const struct steady_params *sp = &st->v.p;
	const struct steady_result *r = &st->v.res[k];
	enum sample_metric m = (enum sample_metric)st->v.metrics[k];
	const char *unit = rep_unit(sample_metric_unit(m));
	const double *y = st->v.series[m];
	char buf[256], l[64];

	fputs("<table class=\"kv evidence\">\n", f);
	snprintf(buf, sizeof(buf), "%s, window %u rounds, %zu rounds judged%s",
		 steady_criterion_name(sp->criterion), sp->window, r->rounds,
		 sp->max_rounds ? "" : " (no cap)");
	h_kv(f, "Criterion", buf);
	snprintf(buf, sizeof(buf), "%s (%s)", sample_metric_name(m), unit);
	h_kv(f, "Metric", buf);
	snprintf(buf, sizeof(buf), "%zu\xe2\x80\x93%zu (%s)", r->window_start, r->window_end,
		 st->v.all.steady ? "the first window that passed" : "the last window judged");
	h_kv(f, "Rounds", buf);
	fputs("<tr><th>Values</th><td class=\"n\">", f);
	for (size_t i = r->window_start; i <= r->window_end; i++)
		fprintf(f, "%s%.6g", i > r->window_start ? " " : "", y[i - 1]);
	fputs("</td></tr>\n", f);
	snprintf(buf, sizeof(buf), "%.6g %s", r->average, unit);
	h_kv(f, "Average", buf);
	snprintf(buf, sizeof(buf), "y = %.6g \xc3\x97 round %s %.6g", r->slope,
		 r->intercept < 0 ? "\xe2\x88\x92" : "+", fabs(r->intercept));
	h_kv(f, "Fitted line", buf);
	snprintf(buf, sizeof(buf), "%.6g %s per round", r->slope, unit);
	h_kv(f, "Slope", buf);
	snprintf(buf, sizeof(buf), "%.6g %s", r->intercept, unit);
	h_kv(f, "Intercept", buf);
	if (sp->criterion == STEADY_SNIA || sp->criterion == STEADY_FIO_DEV) {
		snprintf(buf, sizeof(buf), "%.6g %s %.6g %s (%s): %s", r->data_excursion,
			 r->data_ok ? "within" : "exceeds", r->data_limit, unit,
			 rep_limit_desc(l, sizeof(l), sp, sp->data_limit),
			 r->data_ok ? "pass" : "FAIL");
		fprintf(f, "<tr class=\"%s\"><th>Data excursion</th>",
			r->data_ok ? "pass" : "fail");
		h_td(f, NULL, buf);
		fputs("</tr>\n", f);
	}
	if (sp->criterion == STEADY_SNIA || sp->criterion == STEADY_FIO_SLOPE) {
		snprintf(buf, sizeof(buf), "%.6g %s %.6g %s (%s): %s", r->slope_excursion,
			 r->slope_ok ? "within" : "exceeds", r->slope_limit, unit,
			 rep_limit_desc(l, sizeof(l), sp, sp->slope_limit),
			 r->slope_ok ? "pass" : "FAIL");
		fprintf(f, "<tr class=\"%s\"><th>Slope excursion</th>",
			r->slope_ok ? "pass" : "fail");
		h_td(f, NULL, buf);
		fputs("</tr>\n", f);
	}
	fprintf(f, "<tr class=\"%s\"><th>Verdict</th>", st->v.all.steady ? "pass" : "fail");
	h_td(f, "verdict", rep_verdict(buf, sizeof(buf), st, p));
	fputs("</tr>\n</table>\n", f);
}

/* The SNIA measurement-window charts and tables of one group. */
static void rep_windows(struct rep *R, size_t k)
{
	FILE *f = R->f;
	bool any = false;

	for (size_t ri = 0; ri < R->nruns; ri++) {
		const struct rep_run *rr = &R->runs[ri];
		ssize_t pi = rep_nth(rr, "precondition", k);
		const struct rep_steady *st;
		const struct store_phase *p;

		if (pi < 0)
			continue;
		st = &rr->steady[pi];
		p = &rr->phases[pi];
		if (!st->has)
			continue;
		if (!any)
			fputs("<h3>Steady-state measurement windows</h3>\n"
			      "<p class=\"note\">The window's rounds, their average, the "
			      "\xc2\xb1"
			      "10&#8239;% and \xc2\xb1"
			      "20&#8239;% bands around it and the "
			      "least-squares line, as judged by <code>plateau steady</code> with "
			      "the phase's own criterion.</p>\n<div class=\"grid\">\n",
			      f);
		any = true;
		for (size_t m = 0; m < (st->judged ? st->v.nmetrics : 1); m++) {
			enum sample_metric metric = (enum sample_metric)st->v.metrics[m];
			const struct steady_result *r = &st->v.res[m];
			json_object *w;
			char buf[256], cap[512], attrs[64];

			fputs("<div class=\"window\">\n", f);
			snprintf(cap, sizeof(cap), "run %lld phase %d (%s), %s: %s",
				 (long long)rr->run.id, p->seq, p->name, sample_metric_name(metric),
				 rep_verdict(buf, sizeof(buf), st, p));
			if (!st->judged || !r->window_end) {
				fputs("<h4>", f);
				h_esc(f, cap);
				fputs("</h4>\n<p class=\"note\">", f);
				if (st->judged)
					h_printf(f,
						 "%zu rounds so far: the window is %u rounds, so "
						 "there is nothing to judge yet.",
						 st->v.n, st->v.p.window);
				else
					h_esc(f, st->why);
				fputs("</p>\n</div>\n", f);
				continue;
			}
			w = json_object_new_object();
			json_object_object_add(w, "run", json_object_new_int((int)ri));
			json_object_object_add(w, "phase", json_object_new_int(p->seq));
			json_object_object_add(w, "metric",
					       json_object_new_string(sample_metric_name(metric)));
			json_object_object_add(
				w, "unit",
				json_object_new_string(rep_unit(sample_metric_unit(metric))));
			json_object_object_add(w, "start",
					       json_object_new_int64((int64_t)r->window_start));
			json_object_object_add(w, "end",
					       json_object_new_int64((int64_t)r->window_end));
			{
				json_object *v = json_object_new_array();

				for (size_t i = r->window_start; i <= r->window_end; i++)
					json_object_array_add(
						v, j_num(st->v.series[metric][i - 1], 6));
				json_object_object_add(w, "values", v);
			}
			json_object_object_add(w, "average", j_num(r->average, 10));
			json_object_object_add(w, "slope", j_num(r->slope, 10));
			json_object_object_add(w, "intercept", j_num(r->intercept, 10));
			json_object_object_add(w, "steady",
					       json_object_new_boolean(st->v.all.steady));
			json_object_object_add(w, "verdict", json_object_new_string(buf));
			snprintf(attrs, sizeof(attrs), "data-chart=\"window\" data-window=\"%zu\"",
				 json_object_array_length(R->jwindows));
			json_object_array_add(R->jwindows, w);
			rep_chart(R, cap, attrs);
			rep_evidence(f, st, m, p);
			fputs("</div>\n", f);
		}
	}
	if (any)
		fputs("</div>\n", f);
}

/* The summary table of a group: verdicts and averages over the window. */
static void rep_group_table(struct rep *R, size_t k)
{
	FILE *f = R->f;

	fputs("<table class=\"data\">\n<thead><tr><th>Run</th><th>Phase</th><th>Workload</th>"
	      "<th>Load</th><th>Samples</th><th>Duration</th><th>Steady state</th>"
	      "<th>Window</th><th>IOPS</th><th>MB/s</th><th>Avg lat</th><th>p99</th>"
	      "<th>Max lat</th><th>Lat stddev</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t ri = 0; ri < R->nruns; ri++) {
		const struct rep_run *rr = &R->runs[ri];
		ssize_t pi = rep_nth(rr, "precondition", k);
		const struct rep_steady *st;
		const struct store_phase *p;
		const struct steady_result *a;
		char buf[256];

		if (pi < 0)
			continue;
		st = &rr->steady[pi];
		p = &rr->phases[pi];
		a = &st->v.all;
		fputs("<tr><td>", f);
		rep_run_ref(f, rr);
		fprintf(f, "</td><td class=\"n\">%d</td>", p->seq);
		h_td(f, NULL, p->name);
		h_td(f, NULL, rep_load(buf, sizeof(buf), p));
		fprintf(f, "<td class=\"n\">%lld</td>", (long long)rr->nsamples[pi]);
		h_td(f, "n", rep_duration(buf, sizeof(buf), p->started_ns, p->ended_ns));
		fprintf(f, "<td class=\"%s\">", st->judged && a->steady ? "pass" : "fail");
		h_esc(f, rep_verdict(buf, sizeof(buf), st, p));
		fputs("</td>", f);
		if (st->judged && a->window_end) {
			size_t s = a->window_start, e = a->window_end;

			fprintf(f,
				"<td class=\"n\">%zu\xe2\x80\x93%zu</td><td class=\"n\">%.0f</td>"
				"<td class=\"n\">%.2f</td><td class=\"n\">%.1f&#8239;\xc2\xb5s</td>"
				"<td class=\"n\">%.1f&#8239;\xc2\xb5s</td>"
				"<td class=\"n\">%.1f&#8239;\xc2\xb5s</td>"
				"<td class=\"n\">%.1f&#8239;\xc2\xb5s</td>",
				s, e, rep_mean(st->v.series[SAMPLE_METRIC_IOPS], s, e),
				rep_mean(st->v.series[SAMPLE_METRIC_BW], s, e),
				rep_mean(st->v.series[SAMPLE_METRIC_LAT], s, e),
				rep_mean(st->v.series[SAMPLE_METRIC_P99], s, e),
				rep_max(st->v.series[SAMPLE_METRIC_LAT_MAX], s, e),
				rep_mean(st->v.series[SAMPLE_METRIC_LAT_STDDEV], s, e));
		} else {
			for (int i = 0; i < 7; i++)
				h_td(f, NULL, NULL);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n<p class=\"note\">Window: the rounds of the verdict (the first "
	      "window that passed, else the last judged); IOPS, MB/s, average latency, p99 and "
	      "standard deviation are averaged over it, the maximum latency is its "
	      "largest. Latency is measured from before an I/O is submitted to its "
	      "completion: fio's <i>lat</i>, not <i>clat</i>.</p>\n",
	      f);
}

/* Preconditioning group @k: the k-th precondition phase of every run. */
static int rep_group(struct rep *R, size_t k)
{
	json_object *jg = json_object_new_object(), *jser = json_object_new_array();
	size_t gi = json_object_array_length(R->jgroups), with = 0;
	FILE *f = R->f;

	json_object_object_add(jg, "series", jser);
	json_object_array_add(R->jgroups, jg);

	fprintf(f,
		"<section class=\"group\" id=\"precondition-%zu\">\n<h2>Preconditioning %zu</h2>\n",
		k + 1, k + 1);
	fprintf(f,
		"<p class=\"note\">Precondition phase number %zu of each run (phases are matched "
		"by kind and order); x: time since the phase started (minutes; hours for phases "
		"over 10 hours).  A dashed vertical line "
		"marks the round where a run reached steady state.</p>\n",
		k + 1);
	for (size_t ri = 0; ri < R->nruns; ri++) {
		ssize_t pi = rep_nth(&R->runs[ri], "precondition", k);
		json_object *s;
		size_t per_bucket;

		if (pi < 0 || R->runs[ri].nsamples[pi] <= 0)
			continue;
		s = rep_series(R, ri, (size_t)pi, &per_bucket);
		if (!s)
			return CLI_USAGE;
		json_object_array_add(jser, s);
		with++;
		if (per_bucket > 1)
			fprintf(f,
				"<p class=\"note downsampled\">Run %lld: %lld samples drawn as at "
				"most %d points: the minimum and the maximum of each span of %zu "
				"samples are kept, so peaks and dips survive.  Verdicts and tables "
				"use every sample.</p>\n",
				(long long)R->runs[ri].run.id, (long long)R->runs[ri].nsamples[pi],
				2 * REP_BUCKETS, per_bucket);
	}
	if (with) {
		fputs("<div class=\"grid\">\n", f);
		for (size_t c = 0; c < REP_NCURVES; c++) {
			char attrs[96];

			snprintf(attrs, sizeof(attrs),
				 "data-chart=\"time\" data-group=\"%zu\" data-metric=\"%s\"", gi,
				 rep_curves[c].key);
			rep_chart(R, rep_curves[c].title, attrs);
		}
		fputs("</div>\n", f);
	} else {
		fputs("<p class=\"note\">No samples yet.</p>\n", f);
	}
	rep_group_table(R, k);
	rep_windows(R, k);
	fputs("</section>\n", f);
	return CLI_OK;
}

/* --- sweeps --- */

struct rep_points {
	struct rep_point *v;
	size_t n, cap;
};

static int rep_point_cb(void *ctx, const struct store_point *pt)
{
	struct rep_points *ps = ctx;
	struct rep_point *p;

	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 16;
		struct rep_point *v = realloc(ps->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ps->v = v;
		ps->cap = cap;
	}
	p = &ps->v[ps->n++];
	p->threads = pt->threads;
	p->iodepth = pt->iodepth;
	p->iops = sample_metric(&pt->smp, SAMPLE_METRIC_IOPS);
	p->bw = sample_metric(&pt->smp, SAMPLE_METRIC_BW);
	p->lat = sample_metric(&pt->smp, SAMPLE_METRIC_LAT);
	p->p99 = sample_metric(&pt->smp, SAMPLE_METRIC_P99);
	p->lat_max = sample_metric(&pt->smp, SAMPLE_METRIC_LAT_MAX);
	return 0;
}

static bool rep_points_same(const struct rep_points *a, const struct rep_points *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->v[i].threads != b->v[i].threads || a->v[i].iodepth != b->v[i].iodepth)
			return false;
	return true;
}

/* One chart set: the runs of @members (indices into @pts) sharing a point list. */
static void rep_sweep_set(struct rep *R, size_t k, const struct rep_points *pts,
			  const ssize_t *phase_of, const size_t *members, size_t nm)
{
	json_object *jsw = json_object_new_object(), *labels = json_object_new_array(),
		    *series = json_object_new_array();
	const struct rep_points *first = &pts[members[0]];
	size_t si = json_object_array_length(R->jsweeps);
	FILE *f = R->f;
	char attrs[64], cap[128];

	for (size_t i = 0; i < first->n; i++) {
		char l[32];

		snprintf(l, sizeof(l), "%ux%u", first->v[i].threads, first->v[i].iodepth);
		json_object_array_add(labels, json_object_new_string(l));
	}
	for (size_t j = 0; j < nm; j++) {
		const struct rep_points *ps = &pts[members[j]];
		json_object *s = json_object_new_object(), *a[3];

		for (int x = 0; x < 3; x++)
			a[x] = json_object_new_array();
		for (size_t i = 0; i < ps->n; i++) {
			json_object_array_add(a[0], j_num(ps->v[i].iops, 6));
			json_object_array_add(a[1], j_num(ps->v[i].lat, 6));
			json_object_array_add(a[2], j_num(ps->v[i].p99, 6));
		}
		json_object_object_add(s, "run", json_object_new_int((int)members[j]));
		json_object_object_add(
			s, "phase",
			json_object_new_int(R->runs[members[j]].phases[phase_of[members[j]]].seq));
		json_object_object_add(s, "iops", a[0]);
		json_object_object_add(s, "lat", a[1]);
		json_object_object_add(s, "p99", a[2]);
		json_object_array_add(series, s);
	}
	json_object_object_add(jsw, "labels", labels);
	json_object_object_add(jsw, "series", series);
	json_object_array_add(R->jsweeps, jsw);

	fprintf(f, "<h3>Sweep %zu:", k + 1);
	for (size_t j = 0; j < nm; j++) {
		const struct rep_run *rr = &R->runs[members[j]];
		const struct store_phase *p = &rr->phases[phase_of[members[j]]];

		fputs(j ? ", " : " ", f);
		rep_run_ref(f, rr);
		fputs(" (", f);
		h_esc(f, p->name);
		fputs(")", f);
	}
	fputs("</h3>\n<div class=\"grid\">\n", f);
	snprintf(cap, sizeof(cap), "IOPS by load point (threads \xc3\x97 queue depth)");
	snprintf(attrs, sizeof(attrs), "data-chart=\"sweep-iops\" data-sweep=\"%zu\"", si);
	rep_chart(R, cap, attrs);
	snprintf(cap, sizeof(cap), "Latency by load point: mean (solid) and p99 (dashed)");
	snprintf(attrs, sizeof(attrs), "data-chart=\"sweep-lat\" data-sweep=\"%zu\"", si);
	rep_chart(R, cap, attrs);
	fputs("</div>\n<table class=\"data\">\n<thead><tr><th>Run</th><th>Point</th>"
	      "<th>Threads \xc3\x97 QD</th><th>Effective QD</th><th>IOPS</th><th>MB/s</th>"
	      "<th>Avg lat</th><th>p99</th><th>Max lat</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t j = 0; j < nm; j++) {
		const struct rep_points *ps = &pts[members[j]];

		for (size_t i = 0; i < ps->n; i++) {
			const struct rep_point *pt = &ps->v[i];

			fputs("<tr><td>", f);
			rep_run_ref(f, &R->runs[members[j]]);
			fprintf(f,
				"</td><td class=\"n\">%zu</td><td class=\"n\">%ux%u</td>"
				"<td class=\"n\">%llu</td><td class=\"n\">%.0f</td>"
				"<td class=\"n\">%.2f</td><td class=\"n\">%.1f&#8239;\xc2\xb5s</td>"
				"<td class=\"n\">%.1f&#8239;\xc2\xb5s</td>"
				"<td class=\"n\">%.1f&#8239;\xc2\xb5s</td></tr>\n",
				i + 1, pt->threads, pt->iodepth,
				(unsigned long long)pt->threads * pt->iodepth, pt->iops, pt->bw,
				pt->lat, pt->p99, pt->lat_max);
		}
	}
	fputs("</tbody></table>\n", f);
}

/* Sweep @k of every run; runs whose load points match share charts. */
static int rep_sweep(struct rep *R, size_t k)
{
	struct rep_points *pts = calloc(R->nruns, sizeof(*pts));
	ssize_t *phase_of = calloc(R->nruns, sizeof(*phase_of));
	size_t *members = calloc(R->nruns, sizeof(*members));
	bool *done = calloc(R->nruns, sizeof(*done));
	int r = CLI_OK;

	if (!pts || !phase_of || !members || !done) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}
	for (size_t ri = 0; ri < R->nruns; ri++) {
		phase_of[ri] = rep_nth(&R->runs[ri], "sweep", k);
		if (phase_of[ri] < 0) {
			done[ri] = true;
			continue;
		}
		if (store_points_foreach(R->s, R->runs[ri].phases[phase_of[ri]].id, 0, rep_point_cb,
					 &pts[ri])) {
			r = cli_error(CLI_USAGE, "%s", store_errmsg(R->s));
			goto out;
		}
		if (!pts[ri].n) {
			const struct rep_run *rr = &R->runs[ri];

			fprintf(R->f, "<p class=\"note\">Sweep %zu of ", k + 1);
			rep_run_ref(R->f, rr);
			fputs(": no load points measured.</p>\n", R->f);
			done[ri] = true;
		}
	}
	for (size_t ri = 0; ri < R->nruns; ri++) {
		size_t nm = 0;

		if (done[ri])
			continue;
		for (size_t rj = ri; rj < R->nruns; rj++)
			if (!done[rj] && rep_points_same(&pts[ri], &pts[rj])) {
				members[nm++] = rj;
				done[rj] = true;
			}
		rep_sweep_set(R, k, pts, phase_of, members, nm);
	}
out:
	for (size_t ri = 0; pts && ri < R->nruns; ri++)
		free(pts[ri].v);
	free(pts);
	free(phase_of);
	free(members);
	free(done);
	return r;
}

/* --- one run --- */

static void rep_erase(FILE *f, const struct store_phase *p)
{
	json_object *o = p->result ? json_tokener_parse(p->result) : NULL, *a, *v;
	const char *method, *requested, *err;
	char buf[256];

	fprintf(f, "<h3>Erase record (phase %d)</h3>\n", p->seq);
	if (!o || !json_object_is_type(o, json_type_object)) {
		fputs("<p class=\"note\">No record", f);
		if (p->result) {
			fputs(" that can be read: <code>", f);
			h_esc(f, p->result);
			fputs("</code>", f);
		}
		fputs(".</p>\n", f);
		json_object_put(o);
		return;
	}
	fputs("<table class=\"kv\">\n", f);
	method = j_str(o, "method");
	requested = j_str(o, "requested");
	snprintf(buf, sizeof(buf), "%s (asked for %s)%s", method ? method : "?",
		 requested ? requested : "?",
		 j_bool(o, "resumed") ? ", a sanitize found running after a restart" : "");
	h_kv(f, "Method", buf);
	if (json_object_object_get_ex(o, "completed", &v))
		h_kv(f, "Completed", json_object_get_boolean(v) ? "yes" : "no");
	if (json_object_object_get_ex(o, "attempts", &a) && json_object_is_type(a, json_type_array))
		for (size_t i = 0; i < json_object_array_length(a); i++) {
			json_object *t = json_object_array_get_idx(a, i);
			const char *res = j_bool(t, "ok")     ? "ok"
					  : j_bool(t, "sent") ? "REJECTED"
							      : "not sent";
			const char *am = j_str(t, "method"), *msg = j_str(t, "message");

			fprintf(f, "<tr class=\"%s\"><th>%s</th><td>",
				j_bool(t, "ok") ? "pass" : "fail", i ? "" : "Attempts");
			h_printf(f, "%s: %s", am ? am : "?", res);
			if (msg) {
				fputs("<br><span class=\"msg\">", f);
				h_esc(f, msg);
				fputs("</span>", f);
			}
			fputs("</td></tr>\n", f);
		}
	if (json_object_object_get_ex(o, "warnings", &a) && json_object_is_type(a, json_type_array))
		for (size_t i = 0; i < json_object_array_length(a); i++)
			h_kv(f, i ? "" : "Warnings",
			     json_object_get_string(json_object_array_get_idx(a, i)));
	if (json_object_object_get_ex(o, "verify", &v) &&
	    json_object_is_type(v, json_type_object)) {
		if (!j_bool(v, "done"))
			snprintf(buf, sizeof(buf), "not done");
		else
			snprintf(buf, sizeof(buf),
				 "%s: %d of %d sampled ranges read as 0x%02x (%d zero, %d 0xff, %d "
				 "other)",
				 j_bool(v, "passed") ? "passed" : "FAILED",
				 j_int(v, j_int(v, "expect", 0) ? "ranges_ones" : "ranges_zero", 0),
				 j_int(v, "ranges", 0), j_int(v, "expect", 0) & 0xff,
				 j_int(v, "ranges_zero", 0), j_int(v, "ranges_ones", 0),
				 j_int(v, "ranges_other", 0));
		fprintf(f, "<tr class=\"%s\"><th>Verify</th>",
			j_bool(v, "done") && j_bool(v, "passed") ? "pass" : "fail");
		h_td(f, NULL, buf);
		fputs("</tr>\n", f);
	}
	if ((err = j_str(o, "error")))
		h_kv(f, "Error", err);
	if (json_object_object_get_ex(o, "elapsed_s", &v)) {
		snprintf(buf, sizeof(buf), "%.1f s", json_object_get_double(v));
		h_kv(f, "Elapsed", buf);
	}
	fputs("</table>\n", f);
	json_object_put(o);
}

struct rep_events_ctx {
	FILE *f;
	size_t n;
};

static int rep_event_cb(void *ctx, const struct store_event *ev)
{
	struct rep_events_ctx *c = ctx;
	char t[64];

	if (c->n++ >= REP_MAX_EVENTS)
		return 0;
	if (c->n == 1)
		fputs("<h3>Events</h3>\n<table "
		      "class=\"data\">\n<thead><tr><th>Time</th><th>Kind</th>"
		      "<th>Message</th></tr></thead>\n<tbody>\n",
		      c->f);
	fputs("<tr>", c->f);
	h_td(c->f, NULL, rep_time(t, sizeof(t), ev->time_ns));
	h_td(c->f, NULL, ev->kind);
	h_td(c->f, NULL, ev->message);
	fputs("</tr>\n", c->f);
	return 0;
}

static int rep_run(struct rep *R, size_t ri)
{
	const struct rep_run *rr = &R->runs[ri];
	const struct store_run *run = &rr->run;
	const struct store_drive *d = &run->drive;
	struct rep_events_ctx ec = {.f = R->f};
	FILE *f = R->f;
	char buf[256], t1[64], t2[64];

	fprintf(f, "<section class=\"run\" id=\"run-%lld\">\n<h2>", (long long)run->id);
	rep_swatch(f, rr);
	h_printf(f, "Run %lld: %s", (long long)run->id, run->name);
	fputs("</h2>\n<div class=\"cols\">\n<table class=\"kv\">\n<caption>Drive</caption>\n", f);
	h_kv(f, "Model", d->model);
	h_kv(f, "Serial", d->serial);
	h_kv(f, "Firmware", d->firmware);
	snprintf(buf, sizeof(buf), "%s (%llu bytes)",
		 parse_fmt_size(t1, sizeof(t1), d->capacity_bytes),
		 (unsigned long long)d->capacity_bytes);
	h_kv(f, "Capacity", buf);
	snprintf(buf, sizeof(buf), "%u bytes", d->lba_bytes);
	h_kv(f, "Block size", buf);
	h_kv(f, "Kind", d->kind);
	h_kv(f, "Device", d->path);
	if (*d->eui64)
		h_kv(f, "EUI64", d->eui64);
	if (*d->nguid)
		h_kv(f, "NGUID", d->nguid);
	if (*d->wwn)
		h_kv(f, "WWN", d->wwn);
	fputs("</table>\n<table class=\"kv\">\n<caption>Run</caption>\n", f);
	h_kv(f, "State", run->state);
	h_kv(f, "Created", rep_time(t1, sizeof(t1), run->created_ns));
	h_kv(f, "Started", rep_time(t1, sizeof(t1), run->started_ns));
	h_kv(f, "Ended", rep_time(t1, sizeof(t1), run->ended_ns));
	h_kv(f, "Duration", rep_duration(t1, sizeof(t1), run->started_ns, run->ended_ns));
	h_kv(f, "Host", run->host);
	h_kv(f, "plateau", run->version);
	if (run->error) {
		fputs("<tr class=\"fail\"><th>Error</th>", f);
		h_td(f, NULL, run->error);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n</div>\n", f);

	fputs("<h3>Phases</h3>\n<table class=\"data\">\n<thead><tr><th>#</th><th>Kind</th>"
	      "<th>Name</th><th>State</th><th>Started</th><th>Ended</th><th>Duration</th>"
	      "<th>Progress</th><th>Rounds</th><th>Steady state</th><th>Parameters</th></tr>"
	      "</thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < rr->nphases; i++) {
		const struct store_phase *p = &rr->phases[i];

		fprintf(f, "<tr><td class=\"n\">%d</td>", p->seq);
		h_td(f, NULL, p->kind);
		h_td(f, NULL, p->name);
		h_td(f, NULL, p->state);
		h_td(f, NULL, rep_time(t1, sizeof(t1), p->started_ns));
		h_td(f, NULL, rep_time(t2, sizeof(t2), p->ended_ns));
		h_td(f, "n", rep_duration(buf, sizeof(buf), p->started_ns, p->ended_ns));
		if (p->total_bytes)
			snprintf(buf, sizeof(buf), "%.1f%%",
				 100.0 * (double)p->progress_bytes / (double)p->total_bytes);
		else
			buf[0] = 0;
		h_td(f, "n", buf);
		fprintf(f, "<td class=\"n\">%lld</td>", (long long)p->rounds);
		if (!strcmp(p->kind, "precondition")) {
			fprintf(f, "<td class=\"%s\">",
				rr->steady[i].judged && rr->steady[i].v.all.steady ? "pass"
										   : "fail");
			h_esc(f, rep_verdict(buf, sizeof(buf), &rr->steady[i], p));
			fputs("</td>", f);
		} else {
			h_td(f, NULL, NULL);
		}
		fputs("<td><code class=\"params\">", f);
		h_esc(f, p->params);
		fputs("</code></td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (!rr->nphases)
		fputs("<p class=\"note\">No phases recorded.</p>\n", f);

	for (size_t i = 0; i < rr->nphases; i++)
		if (!strcmp(rr->phases[i].kind, "erase"))
			rep_erase(f, &rr->phases[i]);

	if (store_events_foreach(R->s, run->id, NULL, 0, rep_event_cb, &ec))
		return cli_error(CLI_USAGE, "%s", store_errmsg(R->s));
	if (ec.n)
		fputs("</tbody></table>\n", f);
	if (ec.n > REP_MAX_EVENTS)
		fprintf(f, "<p class=\"note\">The first %d of %zu events.</p>\n", REP_MAX_EVENTS,
			ec.n);

	fputs("<h3>Plan</h3>\n<pre class=\"plan\">", f);
	if (run->plan && *run->plan)
		h_esc(f, run->plan);
	else
		fputs("(empty)", f);
	fputs("</pre>\n</section>\n", f);
	return CLI_OK;
}

/* --- the page --- */

static const struct embed_file *rep_asset(const char *name)
{
	for (size_t i = 0; i < assets_nfiles; i++)
		if (assets_files[i].name && !strcmp(assets_files[i].name, name))
			return &assets_files[i];
	return NULL;
}

/* An asset inlined into an element must not be able to close it. */
static int rep_inline(FILE *f, const char *name, const char *closer)
{
	const struct embed_file *a = rep_asset(name);

	if (!a)
		return cli_error(CLI_USAGE, "%s is not compiled into this plateau", name);
	if (strcasestr(a->data, closer))
		return cli_error(CLI_USAGE, "%s contains '%s' and cannot be inlined", name, closer);
	fwrite(a->data, 1, a->size, f);
	return CLI_OK;
}

/* The JSON text, with every '<' as \u003c (see the top of this file). */
static void rep_json_out(FILE *f, json_object *doc)
{
	const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
								    JSON_C_TO_STRING_NOSLASHESCAPE);

	for (; *s; s++)
		if (*s == '<')
			fputs("\\u003c", f);
		else
			fputc(*s, f);
}

static void rep_summary(struct rep *R)
{
	FILE *f = R->f;

	fputs("<section id=\"summary\">\n<h2>Runs</h2>\n<table class=\"data\">\n<thead><tr>"
	      "<th>Run</th><th>Drive</th><th>Serial</th><th>Firmware</th><th>State</th>"
	      "<th>Created</th><th>Duration</th><th>Preconditioning</th><th>Sweep</th>"
	      "</tr></thead>\n<tbody>\n",
	      f);
	for (size_t ri = 0; ri < R->nruns; ri++) {
		const struct rep_run *rr = &R->runs[ri];
		size_t nsweep = 0;
		char buf[256];

		fputs("<tr><td>", f);
		rep_run_ref(f, rr);
		fputs("</td>", f);
		h_td(f, NULL, rr->run.drive.model);
		h_td(f, NULL, rr->run.drive.serial);
		h_td(f, NULL, rr->run.drive.firmware);
		h_td(f, rr->run.error ? "fail" : NULL, rr->run.state);
		h_td(f, NULL, rep_time(buf, sizeof(buf), rr->run.created_ns));
		h_td(f, "n", rep_duration(buf, sizeof(buf), rr->run.started_ns, rr->run.ended_ns));
		fputs("<td>", f);
		for (size_t i = 0, k = 0; i < rr->nphases; i++) {
			const struct store_phase *p = &rr->phases[i];

			if (strcmp(p->kind, "precondition"))
				continue;
			fprintf(f, "%s<span class=\"%s\">", k++ ? "<br>" : "",
				rr->steady[i].judged && rr->steady[i].v.all.steady ? "pass"
										   : "fail");
			h_printf(f, "phase %d %s: %s", p->seq, p->name,
				 rep_verdict(buf, sizeof(buf), &rr->steady[i], p));
			fputs("</span>", f);
		}
		if (!rep_count(rr, "precondition"))
			fputs("\xe2\x80\x94", f);
		fputs("</td>", f);
		fputs("<td>", f);
		for (size_t i = 0; i < rr->nphases; i++) {
			const struct store_phase *p = &rr->phases[i];

			if (strcmp(p->kind, "sweep"))
				continue;
			fputs(nsweep++ ? "<br>" : "", f);
			h_printf(f, "phase %d %s", p->seq, p->name);
		}
		fputs(nsweep ? "</td></tr>\n" : "no sweep</td></tr>\n", f);
	}
	fputs("</tbody></table>\n</section>\n", f);
}

static int rep_page(struct rep *R)
{
	size_t ngroups = 0, nsweeps = 0;
	FILE *f = R->f;
	char t[64];
	int r;

	for (size_t ri = 0; ri < R->nruns; ri++) {
		size_t g = rep_count(&R->runs[ri], "precondition"),
		       s = rep_count(&R->runs[ri], "sweep");

		if (g > ngroups)
			ngroups = g;
		if (s > nsweeps)
			nsweeps = s;
	}

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"plateau " PLATEAU_VERSION "\">\n<title>",
	      f);
	fputs("plateau report: run", f);
	for (size_t ri = 0; ri < R->nruns; ri++)
		fprintf(f, "%s%lld",
			ri	       ? ", "
			: R->nruns > 1 ? "s "
				       : " ",
			(long long)R->runs[ri].run.id);
	fputs("</title>\n<style>\n", f);
	if ((r = rep_inline(f, "uPlot.min.css", "</style")))
		return r;
	fputs("\n</style>\n<style>\n", f);
	if ((r = rep_inline(f, "report.css", "</style")))
		return r;
	fputs("</style>\n</head>\n<body>\n<header>\n<h1>plateau report</h1>\n<p class=\"meta\">",
	      f);
	h_printf(f, "Generated %s by plateau %s from %s.", rep_time(t, sizeof(t), clock_wall_ns()),
		 PLATEAU_VERSION, R->cli->db_path);
	fputs("</p>\n<p class=\"hint\">Drag across a chart to zoom in (sideways: time or load; "
	      "up or down: values), double-click it to zoom out; hover for values; click a "
	      "legend entry to hide or show its line.</p>\n"
	      "<noscript><p class=\"note\">The charts need JavaScript; the tables below do "
	      "not.</p></noscript>\n<nav>",
	      f);
	for (size_t k = 0; k < ngroups; k++)
		fprintf(f, "<a href=\"#precondition-%zu\">Preconditioning %zu</a> ", k + 1, k + 1);
	if (nsweeps)
		fputs("<a href=\"#sweeps\">Load sweeps</a> ", f);
	for (size_t ri = 0; ri < R->nruns; ri++)
		fprintf(f, "<a href=\"#run-%lld\">Run %lld</a> ", (long long)R->runs[ri].run.id,
			(long long)R->runs[ri].run.id);
	fputs("</nav>\n</header>\n<main>\n", f);

	rep_summary(R);
	for (size_t k = 0; k < ngroups; k++)
		if ((r = rep_group(R, k)))
			return r;
	if (nsweeps) {
		fputs("<section id=\"sweeps\">\n<h2>Load sweeps</h2>\n<p class=\"note\">Each load "
		      "point measured after its ramp; runs with the same load points share a "
		      "chart.</p>\n",
		      f);
		for (size_t k = 0; k < nsweeps; k++)
			if ((r = rep_sweep(R, k)))
				return r;
		fputs("</section>\n", f);
	}
	for (size_t ri = 0; ri < R->nruns; ri++)
		if ((r = rep_run(R, ri)))
			return r;

	json_object_object_add(R->data, "charts", json_object_new_int(R->ncharts));
	fputs("</main>\n<footer><p class=\"note\">Charts drawn with uPlot (MIT license; its text "
	      "is in this page's source).</p></footer>\n"
	      "<script type=\"application/json\" id=\"plateau-data\">\n",
	      f);
	rep_json_out(f, R->data);
	fputs("\n</script>\n<script>\n/*! uPlot license:\n", f);
	if ((r = rep_inline(f, "uPlot.LICENSE", "*/")))
		return r;
	fputs("*/\n", f);
	if ((r = rep_inline(f, "uPlot.iife.min.js", "</script")))
		return r;
	fputs("</script>\n<script>\n", f);
	if ((r = rep_inline(f, "report.js", "</script")))
		return r;
	fputs("</script>\n</body>\n</html>\n", f);
	return CLI_OK;
}

/* Write @len bytes to @path through a temporary file and rename(2). */
static int rep_write(const char *path, const char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	char *tmp = NULL;
	mode_t mask;
	size_t off = 0;
	int fd, saved;

	if (!strcmp(path, "-")) {
		if (fwrite(buf, 1, len, stdout) != len || fflush(stdout))
			return cli_error(CLI_USAGE, "writing the report to standard output failed");
		return CLI_OK;
	}
	if (asprintf(&tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     slash ? slash + 1 : path) < 0)
		return cli_error(CLI_USAGE, "out of memory");
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		free(tmp);
		return cli_error(CLI_USAGE, "%s: cannot create a file beside it: %s", path,
				 strerror(saved));
	}
	/* mkstemp makes it 0600; a report is as readable as any new file */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = EIO;
			goto fail;
		}
		off += (size_t)w;
	}
	if (fsync(fd))
		goto fail;
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path))
		goto fail;
	free(tmp);
	return CLI_OK;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return cli_error(CLI_USAGE, "%s: %s", path, strerror(saved));
}

static void rep_free(struct rep *R)
{
	for (size_t ri = 0; R->runs && ri < R->nruns; ri++) {
		struct rep_run *rr = &R->runs[ri];

		for (size_t i = 0; rr->steady && i < rr->nphases; i++)
			rep_steady_free(&rr->steady[i]);
		free(rr->steady);
		free(rr->nsamples);
		store_phases_free(rr->phases, rr->nphases);
		store_run_clear(&rr->run);
	}
	free(R->runs);
	json_object_put(R->data);
}

/* Load the runs, their phases, and judge every precondition phase. */
static int rep_load_runs(struct rep *R, const int64_t *ids)
{
	int r;

	for (size_t ri = 0; ri < R->nruns; ri++) {
		struct rep_run *rr = &R->runs[ri];

		if ((r = cli_load_run(R->cli, ids[ri], &rr->run)))
			return r;
		rr->color = rep_colors[ri % REP_NCOLORS];
	}
	for (size_t ri = 0; ri < R->nruns; ri++) {
		struct rep_run *rr = &R->runs[ri];

		if (store_phases_list(R->s, rr->run.id, &rr->phases, &rr->nphases))
			return cli_error(CLI_USAGE, "%s", store_errmsg(R->s));
		rr->steady = calloc(rr->nphases + 1, sizeof(*rr->steady));
		rr->nsamples = calloc(rr->nphases + 1, sizeof(*rr->nsamples));
		if (!rr->steady || !rr->nsamples)
			return cli_error(CLI_USAGE, "out of memory");
		for (size_t i = 0; i < rr->nphases; i++) {
			const struct store_phase *p = &rr->phases[i];

			rr->nsamples[i] = store_sample_count(R->s, p->id);
			if (rr->nsamples[i] < 0)
				return cli_error(CLI_USAGE, "%s", store_errmsg(R->s));
			if (!strcmp(p->kind, "precondition") && rr->nsamples[i] > 0 &&
			    (r = rep_judge(R, rr, i)))
				return r;
		}
	}
	return CLI_OK;
}

/* The "runs" of the JSON: what report.js needs to label and colour a series. */
static void rep_json_runs(struct rep *R)
{
	json_object *a = json_object_new_array();

	for (size_t ri = 0; ri < R->nruns; ri++) {
		const struct rep_run *rr = &R->runs[ri];
		json_object *o = json_object_new_object();
		char label[256];

		snprintf(label, sizeof(label), "run %lld %s", (long long)rr->run.id, rr->run.name);
		json_object_object_add(o, "id", json_object_new_int64(rr->run.id));
		json_object_object_add(o, "label", json_object_new_string(label));
		json_object_object_add(o, "name", json_object_new_string(rr->run.name));
		json_object_object_add(o, "serial", json_object_new_string(rr->run.drive.serial));
		json_object_object_add(o, "model", json_object_new_string(rr->run.drive.model));
		json_object_object_add(o, "color", json_object_new_string(rr->color));
		json_object_array_add(a, o);
	}
	json_object_object_add(R->data, "runs", a);
}

int cmd_report(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	struct rep R = {.cli = cli};
	const char *out = NULL;
	int64_t ids[REP_MAX_RUNS];
	char *page = NULL;
	size_t page_len = 0;
	int opt, r;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (out)
				return cli_error(CLI_USAGE, "-o/--output given twice");
			if (!*optarg)
				return cli_error(CLI_USAGE, "-o: expected a file name (or - for "
							    "standard output)");
			out = optarg;
			break;
		default:
			return cli_bad_option("report", argv);
		}
	}
	if (optind >= argc)
		return cli_error(CLI_USAGE,
				 "report: missing RUN (a run number, see `plateau runs`)");
	if (!out)
		return cli_error(CLI_USAGE, "report: missing -o FILE.html (or -o - for standard "
					    "output)");
	if (argc - optind > REP_MAX_RUNS)
		return cli_error(CLI_USAGE, "at most %d runs in one report", REP_MAX_RUNS);
	R.nruns = (size_t)(argc - optind);
	for (size_t i = 0; i < R.nruns; i++) {
		if ((r = cli_find_run(cli, argv[optind + (int)i], &ids[i])))
			return r;
		for (size_t j = 0; j < i; j++)
			if (ids[j] == ids[i])
				return cli_error(CLI_USAGE, "run %lld is named twice",
						 (long long)ids[i]);
	}

	if ((r = cli_store(cli, &R.s)))
		return r;
	R.runs = calloc(R.nruns, sizeof(*R.runs));
	if (!R.runs)
		return cli_error(CLI_USAGE, "out of memory");
	if ((r = rep_load_runs(&R, ids)))
		goto out;

	R.data = json_object_new_object();
	R.jgroups = json_object_new_array();
	R.jwindows = json_object_new_array();
	R.jsweeps = json_object_new_array();
	json_object_object_add(R.data, "version", json_object_new_string(PLATEAU_VERSION));
	rep_json_runs(&R);
	json_object_object_add(R.data, "groups", R.jgroups);
	json_object_object_add(R.data, "windows", R.jwindows);
	json_object_object_add(R.data, "sweeps", R.jsweeps);

	R.f = open_memstream(&page, &page_len);
	if (!R.f) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}
	r = rep_page(&R);
	if ((fclose(R.f) || rep_oom) && !r)
		r = cli_error(CLI_USAGE, "out of memory building the report");
	R.f = NULL;
	if (!r)
		r = rep_write(out, page, page_len);
out:
	free(page);
	rep_free(&R);
	return r;
}

const struct cli_cmd cli_cmd_report = {
	"report",
	"RUN [RUN...] -o FILE.html",
	"one self-contained HTML report: curves, steady-state windows, sweeps, drives",
	"  For each run the drive identity, plan, erase record and phases; for each\n"
	"  preconditioning phase (matched across runs by order) throughput, average,\n"
	"  maximum latency and latency standard deviation over time with every run\n"
	"  overlaid, and the steady-state measurement window with its evidence; the\n"
	"  load sweeps.  The page needs no network (charts: uPlot, inlined) and\n"
	"  prints.  Long phases are drawn from per-span minima and maxima.\n"
	"  -o, --output FILE   where to write it (- for standard output); written\n"
	"                      to a temporary file and renamed, never left half done\n"
	"  Exit status: 0 written; 2 bad input; 3 no such run or database.\n",
	cmd_report,
	CLI_FMT_NONE};
