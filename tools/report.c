// SPDX-License-Identifier: MIT
/*
 * report: `plateau report RUN [RUN ...] -o FILE.html [--metric NAMES]`.
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
 * Runs may come from several databases (cli_find_run() picks each run's;
 * each rep_run keeps its store): they are then named HOST:N on the page.
 * Phases are compared by what they ran, never by their order: see
 * rep_make_groups().  Every number in the JSON is the shortest text that
 * reads back as the same double (j_num()).
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
	fprintf(f, "<a href=\"#%s\">", rr->anchor);
	h_esc(f, rr->ref);
	fputs("</a> ", f);
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

/* "16×16", or "load not recorded" */
static char *rep_load_text(char *buf, size_t len, const struct rep_workload *w)
{
	if (w->threads && w->iodepth)
		snprintf(buf, len, "%u\xc3\x97%u", w->threads, w->iodepth);
	else
		snprintf(buf, len, "load not recorded");
	return buf;
}

/* --- which phases are compared --- */

/*
 * The phases of @kind of every run, in groups of one workload: first the
 * phases of the same workload and the same load (threads x queue depth;
 * a sweep's load is its points), one per run and group, in the order the
 * runs and their phases come; then a group whose runs have no phase in
 * another group of the same workload joins it, marked loads_differ (the
 * page says so in its heading).  Different workloads are never together.
 */
static int rep_make_groups(struct rep *R, const char *kind, struct rep_group **ret, size_t *nret)
{
	bool sweep = !strcmp(kind, "sweep");
	struct rep_group *g = NULL;
	size_t n = 0, cap = 0;

	for (size_t ri = 0; ri < R->nruns; ri++) {
		const struct rep_run *rr = &R->runs[ri];

		for (size_t i = 0; i < rr->nphases; i++) {
			struct rep_workload w;
			size_t k;

			if (strcmp(rr->phases[i].kind, kind))
				continue;
			rep_workload(&rr->phases[i], &w);
			for (k = 0; k < n; k++)
				if (g[k].phase[ri] < 0 && !strcmp(g[k].w.key, w.key) &&
				    (sweep ||
				     (g[k].w.threads == w.threads && g[k].w.iodepth == w.iodepth)))
					break;
			if (k == n) {
				if (n == cap) {
					size_t nc = cap ? 2 * cap : 8;
					struct rep_group *ng = realloc(g, nc * sizeof(*ng));

					if (!ng) {
						free(g);
						return cli_error(CLI_USAGE, "out of memory");
					}
					g = ng;
					cap = nc;
				}
				memset(&g[n], 0, sizeof(g[n]));
				g[n].kind = kind;
				g[n].w = w;
				for (size_t j = 0; j < REP_MAX_RUNS; j++)
					g[n].phase[j] = -1;
				n++;
			}
			g[k].phase[ri] = (ssize_t)i;
			g[k].n++;
		}
	}
	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; b < n; b++) {
			bool disjoint = true;

			if (strcmp(g[a].w.key, g[b].w.key))
				continue;
			for (size_t ri = 0; ri < R->nruns; ri++)
				if (g[a].phase[ri] >= 0 && g[b].phase[ri] >= 0)
					disjoint = false;
			if (!disjoint)
				continue;
			for (size_t ri = 0; ri < R->nruns; ri++)
				if (g[b].phase[ri] >= 0)
					g[a].phase[ri] = g[b].phase[ri];
			g[a].n += g[b].n;
			g[a].loads_differ = true;
			memmove(&g[b], &g[b + 1], (n - b - 1) * sizeof(*g));
			n--;
			b--;
		}
	*ret = g;
	*nret = n;
	return CLI_OK;
}

/* Which group of @groups holds phase @pi of run @ri (for the page's links). */
static size_t rep_group_of(const struct rep_group *groups, size_t n, size_t ri, size_t pi)
{
	for (size_t k = 0; k < n; k++)
		if (groups[k].phase[ri] == (ssize_t)pi)
			return k;
	return n;
}

/*
 * The heading of a group and what it compares: the workload, the load, and
 * in plain words when the runs compared differ (their loads) or when a run
 * of the report is elsewhere (another workload).
 */
static void rep_group_head(struct rep *R, const struct rep_group *groups, size_t ngroups, size_t k,
			   const char *id, const char *title)
{
	const struct rep_group *g = &groups[k];
	FILE *f = R->f;
	bool sweep = !strcmp(g->kind, "sweep");
	char buf[64];
	size_t out = 0;

	fprintf(f, "<h2 id=\"%s-%zu\">%s %zu: ", id, k + 1, title, k + 1);
	h_esc(f, g->w.text);
	if (!sweep && !g->loads_differ)
		h_printf(f, ", %s", rep_load_text(buf, sizeof(buf), &g->w));
	if (g->loads_differ) {
		fputs(" <span class=\"differs\">\xe2\x80\x94 the loads differ: ", f);
		for (size_t ri = 0, j = 0; ri < R->nruns; ri++) {
			struct rep_workload w;

			if (g->phase[ri] < 0)
				continue;
			rep_workload(&R->runs[ri].phases[g->phase[ri]], &w);
			h_printf(f, "%s%s %s", j++ ? ", " : "", R->runs[ri].ref,
				 rep_load_text(buf, sizeof(buf), &w));
		}
		fputs("</span>", f);
	}
	fputs("</h2>\n", f);
	if (g->loads_differ)
		fputs("<p class=\"note differs\">These runs ran the same workload at different "
		      "loads (threads \xc3\x97 queue depth): their curves are overlaid for "
		      "comparison, but they are not the same test.</p>\n",
		      f);
	for (size_t ri = 0; ri < R->nruns; ri++) {
		const struct rep_run *rr = &R->runs[ri];

		if (g->phase[ri] >= 0)
			continue;
		fputs(out++ ? "; " : "<p class=\"note differs\">Not compared here: ", f);
		rep_run_ref(f, rr);
		if (!rep_count(rr, g->kind))
			fprintf(f, " has no %s phase", g->kind);
		for (size_t i = 0, j = 0; i < rr->nphases; i++) {
			size_t o = rep_group_of(groups, ngroups, ri, i);
			struct rep_workload w;

			if (strcmp(rr->phases[i].kind, g->kind) || o == ngroups)
				continue;
			rep_workload(&rr->phases[i], &w);
			fputs(j++ ? ", " : " ran ", f);
			h_esc(f, w.text);
			fprintf(f, " (<a href=\"#%s-%zu\">%s %zu</a>)", id, o + 1, title, o + 1);
		}
	}
	if (out)
		fputs(".</p>\n", f);
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

static const char *const rep_dir_names[SAMPLE_NDIRS] = {"read", "write", "all"};
static const char *const rep_pct_keys[SAMPLE_NPCT] = {"p50", "p90", "p99", "p99.9", "p99.99"};

/* A latency cell in µs, or "—" */
static void rep_lat_td(FILE *f, double us, bool have)
{
	if (have && isfinite(us))
		fprintf(f, "<td class=\"n\">%.1f&#8239;\xc2\xb5s</td>", us);
	else
		h_td(f, "n", NULL);
}

/*
 * The latency of a steady-state window, per direction: p50 to p99.99, mean
 * and maximum, in the page and (exact) in the window's JSON.
 */
static int rep_window_latency(struct rep *R, const struct rep_run *rr, size_t pi,
			      const struct steady_result *r, json_object *w)
{
	json_object *jl = json_object_new_object();
	struct rep_pcts pc;
	FILE *f = R->f;
	int ret;

	if ((ret = rep_window_pcts(rr, pi, r->window_start, r->window_end, &pc))) {
		json_object_put(jl);
		return ret;
	}
	json_object_object_add(jl, "source",
			       json_object_new_string(pc.from_hist ? "histograms" : "rounds"));
	fprintf(f,
		"<table class=\"data pcts\">\n<caption>Latency over rounds "
		"%zu\xe2\x80\x93%zu, %s</caption>\n<thead><tr><th>I/O</th><th>I/Os</th>"
		"<th>Mean</th>",
		r->window_start, r->window_end,
		pc.from_hist ? "percentiles of the rounds' merged histograms"
			     : "the rounds' stored percentiles averaged (no histograms stored)");
	for (int k = 0; k < SAMPLE_NPCT; k++)
		fprintf(f, "<th>%s</th>", rep_pct_keys[k]);
	fputs("<th>Max</th></tr></thead>\n<tbody>\n", f);
	for (int d = 0; d < SAMPLE_NDIRS; d++) {
		json_object *jd = json_object_new_object();
		bool have = pc.ios[d] > 0;

		fprintf(f, "<tr><td>%s</td><td class=\"n\">%llu</td>",
			d == SAMPLE_ALL	   ? "all"
			: d == SAMPLE_READ ? "reads"
					   : "writes",
			(unsigned long long)pc.ios[d]);
		rep_lat_td(f, pc.mean_us[d], have);
		for (int k = 0; k < SAMPLE_NPCT; k++)
			rep_lat_td(f, pc.pct_us[d][k], have);
		rep_lat_td(f, pc.max_us[d], have);
		fputs("</tr>\n", f);
		json_object_object_add(jd, "ios", json_object_new_int64((int64_t)pc.ios[d]));
		json_object_object_add(jd, "mean", have ? j_num(pc.mean_us[d]) : NULL);
		for (int k = 0; k < SAMPLE_NPCT; k++)
			json_object_object_add(jd, rep_pct_keys[k],
					       have ? j_num(pc.pct_us[d][k]) : NULL);
		json_object_object_add(jd, "max", have ? j_num(pc.max_us[d]) : NULL);
		json_object_object_add(jl, rep_dir_names[d], jd);
	}
	fputs("</tbody></table>\n", f);
	json_object_object_add(w, "latency", jl);
	return CLI_OK;
}

/* The SNIA measurement-window charts and tables of one group. */
static int rep_windows(struct rep *R, const struct rep_group *g)
{
	FILE *f = R->f;
	bool any = false;
	int ret;

	for (size_t ri = 0; ri < R->nruns; ri++) {
		const struct rep_run *rr = &R->runs[ri];
		ssize_t pi = g->phase[ri];
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
			      "the phase's own criterion; below each, the latency of the window "
			      "per direction.</p>\n<div class=\"grid\">\n",
			      f);
		any = true;
		for (size_t m = 0; m < (st->judged ? st->v.nmetrics : 1); m++) {
			enum sample_metric metric = (enum sample_metric)st->v.metrics[m];
			const struct steady_result *r = &st->v.res[m];
			json_object *w;
			char buf[256], cap[512], attrs[64];

			fputs("<div class=\"window\">\n", f);
			snprintf(cap, sizeof(cap), "%s phase %d (%s), %s: %s", rr->ref, p->seq,
				 p->name, sample_metric_name(metric),
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
					json_object_array_add(v,
							      j_num(st->v.series[metric][i - 1]));
				json_object_object_add(w, "values", v);
			}
			json_object_object_add(w, "average", j_num(r->average));
			json_object_object_add(w, "slope", j_num(r->slope));
			json_object_object_add(w, "intercept", j_num(r->intercept));
			json_object_object_add(w, "steady",
					       json_object_new_boolean(st->v.all.steady));
			json_object_object_add(w, "verdict", json_object_new_string(buf));
			snprintf(attrs, sizeof(attrs), "data-chart=\"window\" data-window=\"%zu\"",
				 json_object_array_length(R->jwindows));
			json_object_array_add(R->jwindows, w);
			rep_chart(R, cap, attrs);
			rep_evidence(f, st, m, p);
			if ((ret = rep_window_latency(R, rr, (size_t)pi, r, w)))
				return ret;
			fputs("</div>\n", f);
		}
	}
	if (any)
		fputs("</div>\n", f);
	return CLI_OK;
}

/* The summary table of a group: verdicts and averages over the window. */
static void rep_group_table(struct rep *R, const struct rep_group *g)
{
	FILE *f = R->f;

	fputs("<table class=\"data\">\n<thead><tr><th>Run</th><th>Host</th><th>Phase</th>"
	      "<th>Workload</th><th>Load</th><th>Samples</th><th>Duration</th>"
	      "<th>Steady state</th><th>Window</th><th>IOPS</th><th>MB/s</th><th>Avg lat</th>"
	      "<th>p99</th><th>Max lat</th><th>Lat stddev</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t ri = 0; ri < R->nruns; ri++) {
		const struct rep_run *rr = &R->runs[ri];
		ssize_t pi = g->phase[ri];
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
		fputs("</td>", f);
		h_td(f, NULL, rr->run.host);
		fprintf(f, "<td class=\"n\">%d</td>", p->seq);
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

/* Preconditioning group @k: one precondition phase of each run in it. */
static int rep_group(struct rep *R, const struct rep_group *groups, size_t ngroups, size_t k)
{
	const struct rep_group *g = &groups[k];
	json_object *jg = json_object_new_object(), *jser = json_object_new_array();
	size_t gi = json_object_array_length(R->jgroups), with = 0;
	FILE *f = R->f;
	char buf[64];
	int r;

	json_object_object_add(jg, "workload", json_object_new_string(g->w.text));
	/* the load all its phases ran at; null when they differ or were not recorded */
	snprintf(buf, sizeof(buf), "%ux%u", g->w.threads, g->w.iodepth);
	json_object_object_add(
		jg, "load", g->loads_differ || !g->w.threads ? NULL : json_object_new_string(buf));
	json_object_object_add(jg, "loads_differ", json_object_new_boolean(g->loads_differ));
	json_object_object_add(jg, "series", jser);
	json_object_array_add(R->jgroups, jg);

	fputs("<section class=\"group\">\n", f);
	rep_group_head(R, groups, ngroups, k, "precondition", "Preconditioning");
	fputs("<p class=\"note\">The runs' precondition phases of this workload and load "
	      "(matched by workload: pattern, share of reads and transfer sizes; and by "
	      "threads \xc3\x97 queue depth); x: time since the phase started (minutes; hours "
	      "for phases over 10 hours).  A dashed vertical line marks the round where a run "
	      "reached steady state.</p>\n",
	      f);
	for (size_t ri = 0; ri < R->nruns; ri++) {
		ssize_t pi = g->phase[ri];
		json_object *s;
		size_t per_bucket;

		if (pi < 0 || R->runs[ri].nsamples[pi] <= 0)
			continue;
		s = rep_series(R, ri, (size_t)pi, &per_bucket);
		if (!s)
			return CLI_USAGE;
		json_object_array_add(jser, s);
		with++;
		if (per_bucket > 1) {
			fputs("<p class=\"note downsampled\">", f);
			h_printf(f,
				 "%s: %lld samples drawn as at most %d points: the minimum and "
				 "the maximum of each span of %zu samples are kept, so peaks and "
				 "dips survive.  Verdicts and tables use every sample.",
				 R->runs[ri].ref, (long long)R->runs[ri].nsamples[pi],
				 2 * REP_BUCKETS, per_bucket);
			fputs("</p>\n", f);
		}
	}
	if (with) {
		fputs("<div class=\"grid\">\n", f);
		for (size_t c = 0; c < R->ncurves; c++) {
			char attrs[128];

			snprintf(attrs, sizeof(attrs),
				 "data-chart=\"time\" data-group=\"%zu\" data-metric=\"%s\"", gi,
				 R->curves[c].key);
			rep_chart(R, R->curves[c].title, attrs);
		}
		fputs("</div>\n", f);
	} else {
		fputs("<p class=\"note\">No samples yet.</p>\n", f);
	}
	rep_group_table(R, g);
	if ((r = rep_windows(R, g)))
		return r;
	fputs("</section>\n", f);
	return CLI_OK;
}

/* --- sweeps --- */

/* A measured load point; its sample without histograms. */
struct rep_point {
	int seq;
	unsigned int threads, iodepth;
	struct sample smp;
};

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
	p->seq = pt->seq;
	p->threads = pt->threads;
	p->iodepth = pt->iodepth;
	p->smp = pt->smp;
	p->smp.hist[0] = p->smp.hist[1] = NULL;
	return 0;
}

/* by thread count, then queue depth, then order of measurement */
static int rep_point_cmp(const void *a, const void *b)
{
	const struct rep_point *x = a, *y = b;

	if (x->threads != y->threads)
		return x->threads < y->threads ? -1 : 1;
	if (x->iodepth != y->iodepth)
		return x->iodepth < y->iodepth ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* the figures of a point the page shows, as JSON */
static json_object *rep_point_json(size_t ri, const struct store_phase *p,
				   const struct rep_point *pt)
{
	static const enum sample_dir dirs[2] = {SAMPLE_READ, SAMPLE_WRITE};
	json_object *o = json_object_new_object();

	json_object_object_add(o, "run", json_object_new_int((int)ri));
	json_object_object_add(o, "phase", json_object_new_int(p->seq));
	json_object_object_add(o, "point", json_object_new_int(pt->seq));
	json_object_object_add(o, "threads", json_object_new_int((int)pt->threads));
	json_object_object_add(o, "iodepth", json_object_new_int((int)pt->iodepth));
	json_object_object_add(o, "iops", j_num(sample_metric(&pt->smp, SAMPLE_METRIC_IOPS)));
	json_object_object_add(o, "bw", j_num(sample_metric(&pt->smp, SAMPLE_METRIC_BW)));
	json_object_object_add(o, "lat", j_num(sample_metric(&pt->smp, SAMPLE_METRIC_LAT)));
	json_object_object_add(o, "p99", j_num(sample_metric(&pt->smp, SAMPLE_METRIC_P99)));
	json_object_object_add(o, "lat_max", j_num(sample_metric(&pt->smp, SAMPLE_METRIC_LAT_MAX)));
	for (int d = 0; d < 2; d++) {
		json_object *jd = json_object_new_object();
		bool have = pt->smp.st[dirs[d]].ios > 0;
		int m;

		json_object_object_add(jd, "ios",
				       json_object_new_int64((int64_t)pt->smp.st[dirs[d]].ios));
		m = sample_metric_of(dirs[d], SAMPLE_STAT_LAT_MEAN, 0);
		json_object_object_add(jd, "mean",
				       have ? j_num(sample_metric(&pt->smp, (enum sample_metric)m))
					    : NULL);
		for (int k = 2; k < SAMPLE_NPCT; k += 2) {
			/* p99 and p99.99, as the reviews tabulate them */
			m = sample_metric_of(dirs[d], SAMPLE_STAT_PCT, k);
			json_object_object_add(
				jd, rep_pct_keys[k],
				have ? j_num(sample_metric(&pt->smp, (enum sample_metric)m))
				     : NULL);
		}
		json_object_object_add(o, rep_dir_names[dirs[d]], jd);
	}
	return o;
}

/* "12.5 µs" for a direction's latency statistic, or "—" without I/O */
static void rep_point_lat(FILE *f, const struct rep_point *pt, enum sample_dir d,
			  enum sample_stat stat, int pct)
{
	int m = sample_metric_of(d, stat, pct);

	rep_lat_td(f, m < 0 ? NAN : sample_metric(&pt->smp, (enum sample_metric)m),
		   pt->smp.st[d].ios > 0);
}

/*
 * Sweep group @k: one line per run and thread count over queue depth
 * (IOPS, or MB/s for large transfers), latency against that throughput
 * (demand intensity), and the points table.
 */
static int rep_sweep(struct rep *R, const struct rep_group *groups, size_t ngroups, size_t k)
{
	const struct rep_group *g = &groups[k];
	struct rep_points pts[REP_MAX_RUNS];
	json_object *jsw, *series, *jpts;
	bool bw = g->w.large;
	size_t si, with = 0;
	FILE *f = R->f;
	char attrs[96];
	int r = CLI_OK;

	memset(pts, 0, sizeof(pts));
	fputs("<section class=\"group\">\n", f);
	rep_group_head(R, groups, ngroups, k, "sweep", "Load sweep");
	for (size_t ri = 0; ri < R->nruns; ri++) {
		const struct rep_run *rr = &R->runs[ri];

		if (g->phase[ri] < 0)
			continue;
		if (store_points_foreach(rr->s, rr->phases[g->phase[ri]].id, 0, rep_point_cb,
					 &pts[ri])) {
			r = cli_error(CLI_USAGE, "%s", store_errmsg(rr->s));
			goto out;
		}
		qsort(pts[ri].v, pts[ri].n, sizeof(*pts[ri].v), rep_point_cmp);
		if (!pts[ri].n) {
			fputs("<p class=\"note\">", f);
			rep_run_ref(f, rr);
			fprintf(f, " (phase %d): no load points measured.</p>\n",
				rr->phases[g->phase[ri]].seq);
		}
		with += pts[ri].n > 0;
	}
	if (!with) {
		fputs("</section>\n", f);
		goto out;
	}

	jsw = json_object_new_object();
	series = json_object_new_array();
	jpts = json_object_new_array();
	json_object_object_add(jsw, "workload", json_object_new_string(g->w.text));
	json_object_object_add(jsw, "y", json_object_new_string(bw ? "bw" : "iops"));
	for (size_t ri = 0; ri < R->nruns; ri++) {
		const struct rep_points *ps = &pts[ri];

		for (size_t i = 0; i < ps->n;) {
			json_object *s = json_object_new_object(), *a[6];
			size_t j;

			for (int x = 0; x < 6; x++)
				a[x] = json_object_new_array();
			for (j = i; j < ps->n && ps->v[j].threads == ps->v[i].threads; j++) {
				const struct sample *smp = &ps->v[j].smp;

				json_object_array_add(a[0],
						      json_object_new_int((int)ps->v[j].iodepth));
				json_object_array_add(
					a[1], j_num(sample_metric(smp, SAMPLE_METRIC_IOPS)));
				json_object_array_add(a[2],
						      j_num(sample_metric(smp, SAMPLE_METRIC_BW)));
				json_object_array_add(a[3],
						      j_num(sample_metric(smp, SAMPLE_METRIC_LAT)));
				json_object_array_add(a[4],
						      j_num(sample_metric(smp, SAMPLE_METRIC_P99)));
				json_object_array_add(
					a[5], j_num(sample_metric(smp, SAMPLE_METRIC_P9999)));
			}
			json_object_object_add(s, "run", json_object_new_int((int)ri));
			json_object_object_add(
				s, "phase",
				json_object_new_int(R->runs[ri].phases[g->phase[ri]].seq));
			json_object_object_add(s, "threads",
					       json_object_new_int((int)ps->v[i].threads));
			json_object_object_add(s, "iodepth", a[0]);
			json_object_object_add(s, "iops", a[1]);
			json_object_object_add(s, "bw", a[2]);
			json_object_object_add(s, "lat", a[3]);
			json_object_object_add(s, "p99", a[4]);
			json_object_object_add(s, "p99.99", a[5]);
			json_object_array_add(series, s);
			i = j;
		}
		for (size_t i = 0; i < ps->n; i++)
			json_object_array_add(
				jpts,
				rep_point_json(ri, &R->runs[ri].phases[g->phase[ri]], &ps->v[i]));
	}
	json_object_object_add(jsw, "series", series);
	json_object_object_add(jsw, "points", jpts);
	si = json_object_array_length(R->jsweeps);
	json_object_array_add(R->jsweeps, jsw);

	fprintf(f,
		"<p class=\"note\">Each load point measured after its ramp.  One line per "
		"thread count%s; %s%s.</p>\n<div class=\"grid\">\n",
		g->n > 1 ? " and run" : "",
		bw ? "MB/s (10<sup>6</sup> bytes per second), as every transfer is 64&#8239;KiB "
		     "or larger"
		   : "IOPS",
		bw ? "" : " (MB/s for workloads whose every transfer is 64&#8239;KiB or larger)");
	snprintf(attrs, sizeof(attrs), "data-chart=\"sweep-qd\" data-sweep=\"%zu\"", si);
	rep_chart(R,
		  bw ? "MB/s against queue depth, one line per thread count"
		     : "IOPS against queue depth, one line per thread count",
		  attrs);
	snprintf(attrs, sizeof(attrs),
		 "data-chart=\"sweep-di\" data-sweep=\"%zu\" data-lat=\"lat\"", si);
	rep_chart(R,
		  bw ? "Mean latency against MB/s (demand intensity), one line per thread count"
		     : "Mean latency against IOPS (demand intensity), one line per thread count",
		  attrs);
	snprintf(attrs, sizeof(attrs),
		 "data-chart=\"sweep-di\" data-sweep=\"%zu\" data-lat=\"p99\"", si);
	rep_chart(R,
		  bw ? "p99 latency against MB/s, one line per thread count"
		     : "p99 latency against IOPS, one line per thread count",
		  attrs);
	fputs("</div>\n<table class=\"data points\">\n<thead><tr><th rowspan=\"2\">Run</th>"
	      "<th rowspan=\"2\">Point</th><th rowspan=\"2\">Threads</th>"
	      "<th rowspan=\"2\">QD</th><th rowspan=\"2\">Outstanding</th>"
	      "<th rowspan=\"2\">IOPS</th><th rowspan=\"2\">MB/s</th>"
	      "<th colspan=\"3\">Read latency</th><th colspan=\"3\">Write latency</th>"
	      "<th rowspan=\"2\">Max lat</th></tr>\n<tr><th>mean</th><th>p99</th><th>p99.99</th>"
	      "<th>mean</th><th>p99</th><th>p99.99</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t ri = 0; ri < R->nruns; ri++)
		for (size_t i = 0; i < pts[ri].n; i++) {
			const struct rep_point *pt = &pts[ri].v[i];

			fputs("<tr><td>", f);
			rep_run_ref(f, &R->runs[ri]);
			fprintf(f,
				"</td><td class=\"n\">%d</td><td class=\"n\">%u</td>"
				"<td class=\"n\">%u</td><td class=\"n\">%llu</td>"
				"<td class=\"n\">%.0f</td><td class=\"n\">%.2f</td>",
				pt->seq, pt->threads, pt->iodepth,
				(unsigned long long)pt->threads * pt->iodepth,
				sample_metric(&pt->smp, SAMPLE_METRIC_IOPS),
				sample_metric(&pt->smp, SAMPLE_METRIC_BW));
			for (int d = SAMPLE_READ; d <= SAMPLE_WRITE; d++) {
				rep_point_lat(f, pt, (enum sample_dir)d, SAMPLE_STAT_LAT_MEAN, 0);
				rep_point_lat(f, pt, (enum sample_dir)d, SAMPLE_STAT_PCT, 2);
				rep_point_lat(f, pt, (enum sample_dir)d, SAMPLE_STAT_PCT, 4);
			}
			rep_lat_td(f, sample_metric(&pt->smp, SAMPLE_METRIC_LAT_MAX), true);
			fputs("</tr>\n", f);
		}
	fputs("</tbody></table>\n</section>\n", f);
out:
	for (size_t ri = 0; ri < R->nruns; ri++)
		free(pts[ri].v);
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
	char buf[256], t1[64], t2[64], params[2048];

	fprintf(f, "<section class=\"run\" id=\"%s\">\n<h2>", rr->anchor);
	rep_swatch(f, rr);
	if (R->ndbs > 1)
		h_printf(f, "%s: %s", rr->ref, run->name);
	else
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
	h_kv(f, "Global id", run->uuid);
	h_kv(f, "Database", store_path(rr->s));
	snprintf(buf, sizeof(buf), "%lld", (long long)run->id);
	h_kv(f, "Run number", buf);
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
		fputs("<td class=\"params\">", f);
		h_esc(f, rep_params_text(params, sizeof(params), p));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (!rr->nphases)
		fputs("<p class=\"note\">No phases recorded.</p>\n", f);

	for (size_t i = 0; i < rr->nphases; i++)
		if (!strcmp(rr->phases[i].kind, "erase"))
			rep_erase(f, &rr->phases[i]);

	if (store_events_foreach(rr->s, run->id, NULL, 0, rep_event_cb, &ec))
		return cli_error(CLI_USAGE, "%s", store_errmsg(rr->s));
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
	      "<th>Run</th><th>Host</th><th>Global id</th><th>Drive</th><th>Serial</th>"
	      "<th>Firmware</th><th>State</th>"
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
		h_td(f, NULL, rr->run.host);
		h_td(f, "uuid", rr->run.uuid);
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
	struct rep_group *pre = NULL, *sw = NULL;
	size_t npre = 0, nsw = 0;
	FILE *f = R->f;
	char t[64];
	int r;

	if ((r = rep_make_groups(R, "precondition", &pre, &npre)) ||
	    (r = rep_make_groups(R, "sweep", &sw, &nsw)))
		goto out;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"plateau " PLATEAU_VERSION "\">\n<title>",
	      f);
	fputs("plateau report: ", f);
	for (size_t ri = 0; ri < R->nruns; ri++) {
		if (R->ndbs > 1)
			fputs(ri ? ", " : "", f);
		else
			fputs(ri ? ", " : R->nruns > 1 ? "runs " : "run ", f);
		if (R->ndbs > 1)
			h_esc(f, R->runs[ri].ref);
		else
			fprintf(f, "%lld", (long long)R->runs[ri].run.id);
	}
	fputs("</title>\n<style>\n", f);
	if ((r = rep_inline(f, "uPlot.min.css", "</style")))
		goto out;
	fputs("\n</style>\n<style>\n", f);
	if ((r = rep_inline(f, "report.css", "</style")))
		goto out;
	fputs("</style>\n</head>\n<body>\n<header>\n<h1>plateau report</h1>\n<p class=\"meta\">",
	      f);
	h_printf(f, "Generated %s by plateau %s from ", rep_time(t, sizeof(t), clock_wall_ns()),
		 PLATEAU_VERSION);
	if (R->ndbs > 1)
		fprintf(f, "%zu databases: ", R->ndbs);
	for (size_t d = 0; d < R->ndbs; d++) {
		fputs(d ? ", " : "", f);
		h_esc(f, R->dbs[d]);
	}
	fputs(".</p>\n<p class=\"hint\">Drag across a chart to zoom in (sideways: time or load; "
	      "up or down: values), double-click it to zoom out; hover for values; click a "
	      "legend entry to hide or show its line.</p>\n"
	      "<noscript><p class=\"note\">The charts need JavaScript; the tables below do "
	      "not.</p></noscript>\n<nav>",
	      f);
	for (size_t k = 0; k < npre; k++)
		fprintf(f, "<a href=\"#precondition-%zu\">Preconditioning %zu</a> ", k + 1, k + 1);
	for (size_t k = 0; k < nsw; k++)
		fprintf(f, "<a href=\"#sweep-%zu\">Load sweep %zu</a> ", k + 1, k + 1);
	for (size_t ri = 0; ri < R->nruns; ri++) {
		fprintf(f, "<a href=\"#%s\">", R->runs[ri].anchor);
		if (R->ndbs > 1)
			h_esc(f, R->runs[ri].ref);
		else
			fprintf(f, "Run %lld", (long long)R->runs[ri].run.id);
		fputs("</a> ", f);
	}
	fputs("</nav>\n</header>\n<main>\n", f);

	rep_summary(R);
	for (size_t k = 0; k < npre; k++)
		if ((r = rep_group(R, pre, npre, k)))
			goto out;
	if (nsw) {
		fputs("<div id=\"sweeps\">\n", f);
		for (size_t k = 0; k < nsw; k++)
			if ((r = rep_sweep(R, sw, nsw, k)))
				goto out;
		fputs("</div>\n", f);
	}
	for (size_t ri = 0; ri < R->nruns; ri++)
		if ((r = rep_run(R, ri)))
			goto out;

	json_object_object_add(R->data, "charts", json_object_new_int(R->ncharts));
	fputs("</main>\n<footer><p class=\"note\">Charts drawn with uPlot (MIT license; its text "
	      "is in this page's source).</p></footer>\n"
	      "<script type=\"application/json\" id=\"plateau-data\">\n",
	      f);
	rep_json_out(f, R->data);
	fputs("\n</script>\n<script>\n/*! uPlot license:\n", f);
	if ((r = rep_inline(f, "uPlot.LICENSE", "*/")))
		goto out;
	fputs("*/\n", f);
	if ((r = rep_inline(f, "uPlot.iife.min.js", "</script")))
		goto out;
	fputs("</script>\n<script>\n", f);
	if ((r = rep_inline(f, "report.js", "</script")))
		goto out;
	fputs("</script>\n</body>\n</html>\n", f);
out:
	free(pre);
	free(sw);
	return r;
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

/* Load a run's phases and judge every precondition phase. */
static int rep_load_phases(struct rep *R, struct rep_run *rr)
{
	int r;

	if (store_phases_list(rr->s, rr->run.id, &rr->phases, &rr->nphases))
		return cli_error(CLI_USAGE, "%s", store_errmsg(rr->s));
	rr->steady = calloc(rr->nphases + 1, sizeof(*rr->steady));
	rr->nsamples = calloc(rr->nphases + 1, sizeof(*rr->nsamples));
	if (!rr->steady || !rr->nsamples)
		return cli_error(CLI_USAGE, "out of memory");
	for (size_t i = 0; i < rr->nphases; i++) {
		const struct store_phase *p = &rr->phases[i];

		rr->nsamples[i] = store_sample_count(rr->s, p->id);
		if (rr->nsamples[i] < 0)
			return cli_error(CLI_USAGE, "%s", store_errmsg(rr->s));
		if (!strcmp(p->kind, "precondition") && rr->nsamples[i] > 0 &&
		    (r = rep_judge(R, rr, i)))
			return r;
	}
	return CLI_OK;
}

/*
 * Find and load the runs @args name, each from its own database (the one
 * cli_store() returns after cli_find_run()); a run named twice (the same
 * run of the same database, or the same global id) is refused.
 */
static int rep_load_runs(struct rep *R, char **args, size_t n)
{
	int r;

	for (size_t ri = 0; ri < n; ri++) {
		struct rep_run *rr = &R->runs[ri];
		int64_t id;
		size_t d;

		if ((r = cli_find_run(R->cli, args[ri], &id)) || (r = cli_store(R->cli, &rr->s)))
			return r;
		R->nruns = ri + 1;
		if ((r = cli_load_run(R->cli, id, &rr->run)))
			return r;
		for (size_t j = 0; j < ri; j++) {
			const struct rep_run *o = &R->runs[j];

			if (o->s == rr->s && o->run.id == id)
				return cli_error(CLI_USAGE, "run %s is named twice", args[ri]);
			if (*o->run.uuid && !strcmp(o->run.uuid, rr->run.uuid))
				return cli_error(CLI_USAGE,
						 "runs %s and %s are the same run (global id %s): "
						 "name it once",
						 args[j], args[ri], rr->run.uuid);
		}
		for (d = 0; d < R->ndbs; d++)
			if (!strcmp(R->dbs[d], store_path(rr->s)))
				break;
		if (d == R->ndbs)
			R->dbs[R->ndbs++] = store_path(rr->s);
		rr->db = d;
		rr->color = rep_colors[ri % REP_NCOLORS];
	}
	/* several databases: a run number alone says nothing, its host does */
	for (size_t ri = 0; ri < R->nruns; ri++) {
		struct rep_run *rr = &R->runs[ri];

		if (R->ndbs > 1) {
			if (*rr->run.host)
				snprintf(rr->ref, sizeof(rr->ref), "%s:%lld", rr->run.host,
					 (long long)rr->run.id);
			else
				snprintf(rr->ref, sizeof(rr->ref), "database %zu run %lld",
					 rr->db + 1, (long long)rr->run.id);
			snprintf(rr->anchor, sizeof(rr->anchor), "run-%zu-%lld", rr->db + 1,
				 (long long)rr->run.id);
		} else {
			snprintf(rr->ref, sizeof(rr->ref), "run %lld", (long long)rr->run.id);
			snprintf(rr->anchor, sizeof(rr->anchor), "run-%lld", (long long)rr->run.id);
		}
		if ((r = rep_load_phases(R, rr)))
			return r;
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
		char label[400];

		snprintf(label, sizeof(label), "%s %s", rr->ref, rr->run.name);
		json_object_object_add(o, "id", json_object_new_int64(rr->run.id));
		json_object_object_add(o, "ref", json_object_new_string(rr->ref));
		json_object_object_add(o, "label", json_object_new_string(label));
		json_object_object_add(o, "name", json_object_new_string(rr->run.name));
		json_object_object_add(o, "host", json_object_new_string(rr->run.host));
		json_object_object_add(o, "uuid",
				       *rr->run.uuid ? json_object_new_string(rr->run.uuid) : NULL);
		json_object_object_add(o, "db", json_object_new_string(R->dbs[rr->db]));
		json_object_object_add(o, "serial", json_object_new_string(rr->run.drive.serial));
		json_object_object_add(o, "model", json_object_new_string(rr->run.drive.model));
		json_object_object_add(o, "color", json_object_new_string(rr->color));
		json_object_array_add(a, o);
	}
	json_object_object_add(R->data, "runs", a);
}

/* The axis label of a default curve (report.js adds the latency unit). */
static const char *rep_axis(enum sample_metric m)
{
	switch (m) {
	case SAMPLE_METRIC_IOPS:
		return "IOPS";
	case SAMPLE_METRIC_LAT:
		return "mean latency";
	case SAMPLE_METRIC_LAT_MAX:
		return "max latency";
	case SAMPLE_METRIC_LAT_STDDEV:
		return "latency std dev";
	default:
		return sample_metric_name(m);
	}
}

/* A caption for a metric --metric adds: "99.9th percentile latency of reads (read.p99.9)" */
static void rep_metric_title(char *buf, size_t len, enum sample_metric m)
{
	static const char *const stats[] = {
		[SAMPLE_STAT_IOPS] = "Throughput",
		[SAMPLE_STAT_BW] = "Throughput",
		[SAMPLE_STAT_LAT_MEAN] = "Average latency",
		[SAMPLE_STAT_LAT_MIN] = "Minimum latency",
		[SAMPLE_STAT_LAT_MAX] = "Maximum latency",
		[SAMPLE_STAT_LAT_STDDEV] = "Latency standard deviation",
		[SAMPLE_STAT_PCT] = "",
	};
	enum sample_stat st = sample_metric_stat(m);
	enum sample_dir d = sample_metric_dir(m);
	const char *of = d == SAMPLE_READ ? " of reads" : d == SAMPLE_WRITE ? " of writes" : "";
	char what[64];

	if (st == SAMPLE_STAT_PCT)
		snprintf(what, sizeof(what), "%gth percentile latency",
			 sample_pcts[sample_metric_pct(m)]);
	else
		snprintf(what, sizeof(what), "%s", stats[st]);
	snprintf(buf, len, "%s%s (%s)", what, of, sample_metric_name(m));
}

/* --metric NAME[,NAME...]: charts over time besides the default four. */
static int rep_add_metrics(struct rep *R, char (*titles)[128], const char *arg)
{
	char *copy = strdup(arg), *save = NULL;
	size_t ntok = 0;
	int r = CLI_OK;

	if (!copy)
		return cli_error(CLI_USAGE, "out of memory");
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int m = sample_metric_parse(tok);
		size_t k;

		ntok++;
		if (m < 0) {
			r = cli_error(CLI_USAGE, "report: --metric '%s': expected one of %s", tok,
				      sample_metric_names());
			break;
		}
		for (k = 0; k < R->ncurves; k++)
			if ((int)R->curves[k].m == m)
				break;
		if (k < R->ncurves || R->ncurves == REP_MAX_CURVES)
			continue;
		rep_metric_title(titles[R->ncurves], sizeof(titles[0]), (enum sample_metric)m);
		R->curves[R->ncurves].m = (enum sample_metric)m;
		R->curves[R->ncurves].key = sample_metric_name((enum sample_metric)m);
		R->curves[R->ncurves].title = titles[R->ncurves];
		R->ncurves++;
	}
	if (!ntok)
		r = cli_error(CLI_USAGE,
			      "report: --metric: expected a metric name, e.g. read.p99.9");
	free(copy);
	return r;
}

/* The "curves" of the JSON: the metrics of the charts over time. */
static void rep_json_curves(struct rep *R)
{
	json_object *a = json_object_new_array();

	for (size_t k = 0; k < R->ncurves; k++) {
		json_object *o = json_object_new_object();
		const char *unit = sample_metric_unit(R->curves[k].m);
		bool lat = !strcmp(unit, "us");
		char axis[96];

		if (lat || k < REP_NCURVES)
			snprintf(axis, sizeof(axis), "%s", rep_axis(R->curves[k].m));
		else
			snprintf(axis, sizeof(axis), "%s (%s)", rep_axis(R->curves[k].m), unit);
		json_object_object_add(o, "key", json_object_new_string(R->curves[k].key));
		json_object_object_add(o, "axis", json_object_new_string(axis));
		json_object_object_add(o, "lat", json_object_new_boolean(lat));
		json_object_array_add(a, o);
	}
	json_object_object_add(R->data, "curves", a);
}

int cmd_report(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"metric", required_argument, NULL, 'm'},
		{NULL, 0, NULL, 0},
	};
	static char titles[REP_MAX_CURVES][128];
	struct rep R = {.cli = cli};
	const char *out = NULL;
	char *page = NULL;
	size_t page_len = 0;
	int opt, r;

	memcpy(R.curves, rep_curves, sizeof(rep_curves));
	R.ncurves = REP_NCURVES;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:m:", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (out)
				return cli_error(CLI_USAGE, "-o/--output given twice");
			if (!*optarg)
				return cli_error(CLI_USAGE, "-o: expected a file name (or - for "
							    "standard output)");
			out = optarg;
			break;
		case 'm':
			if ((r = rep_add_metrics(&R, titles, optarg)))
				return r;
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
	R.runs = calloc((size_t)(argc - optind), sizeof(*R.runs));
	if (!R.runs)
		return cli_error(CLI_USAGE, "out of memory");
	if ((r = rep_load_runs(&R, argv + optind, (size_t)(argc - optind))))
		goto out;
	if (strcmp(out, "-")) {
		/* never over a database being read (or its -wal, -shm):
		 * the rename would replace it; decided by the file's identity */
		int fd = open(out, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		bool same = fd >= 0 && cli_db_holds(cli, fd);

		if (fd >= 0)
			close(fd);
		if (same) {
			r = cli_error(
				CLI_USAGE,
				"report: -o %s is one of the databases read (or its -wal, -shm or "
				"-journal); give another file",
				out);
			goto out;
		}
	}

	R.data = json_object_new_object();
	R.jgroups = json_object_new_array();
	R.jwindows = json_object_new_array();
	R.jsweeps = json_object_new_array();
	json_object_object_add(R.data, "version", json_object_new_string(PLATEAU_VERSION));
	rep_json_runs(&R);
	rep_json_curves(&R);
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
	"RUN [RUN...] -o FILE.html [--metric NAME[,NAME...]]",
	"one self-contained HTML report: curves, steady-state windows, sweeps, drives",
	"  RUN: as `plateau runs` names it; with several databases (--db A --db B,\n"
	"  --db DIR) runs from all of them share the page, each shown with its host\n"
	"  and global id.  For each run the drive identity, plan, erase record,\n"
	"  events and phases (parameters as text).  Precondition phases are compared\n"
	"  by workload (pattern, reads, transfer sizes) and load (threads x queue\n"
	"  depth): the runs' phases of one workload and load share charts (throughput,\n"
	"  average, maximum latency, latency standard deviation over time, every run\n"
	"  overlaid); the same workload at other loads joins them with the heading\n"
	"  saying so; other workloads are never overlaid.  Each steady-state window\n"
	"  with its evidence and its latency per direction (p50 to p99.99).  Each\n"
	"  load sweep: IOPS (MB/s when every transfer is 64 KiB or more) against\n"
	"  queue depth and latency against IOPS, one line per thread count, and a\n"
	"  points table (read and write mean, p99, p99.99).  The page needs no\n"
	"  network (charts: uPlot, inlined) and prints; long phases are drawn from\n"
	"  per-span minima and maxima.  Every number in its JSON reads back exactly.\n"
	"  -o, --output FILE   where to write it (- for standard output); written\n"
	"                      to a temporary file and renamed, never left half done\n"
	"  -m, --metric NAMES  more charts over time, e.g. read.p99.9,write.lat\n"
	"                      (repeatable; the names of `plateau steady --metric`)\n"
	"  Exit status: 0 written; 2 bad input; 3 no such run or database.\n",
	cmd_report,
	CLI_FMT_NONE};
