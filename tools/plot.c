// SPDX-License-Identifier: MIT
/*
 * plot: `plateau plot`, the curve of a phase drawn in the terminal.
 *
 * The chart is a grid of dots: Unicode braille cells of 2 x 4 dots
 * (U+2800..U+28FF), or with --ascii cells of 1 x 2 dots drawn as ' . and :.
 * Every sample is a point at (its end time since the phase began, its
 * value).  The samples that fall in one dot column are reduced to their
 * minimum, maximum, first and last value, so a million samples cost one pass
 * over the rows and a few kilobytes of columns, and the vertical span of a
 * column shows the whole spread hidden in it.  A column's last value is
 * joined to the next column's first by a line.
 *
 * The steady-state verdict is the one `plateau show` and `plateau steady`
 * give (lib/verdict.h: the phase's own criterion, window, limits and metrics): the
 * window's first and last rounds are marked by dotted vertical lines in the
 * empty cells of their columns and by a bracket under the time axis.
 *
 * The output depends only on the database, the metric, --width, --height
 * and --ascii (no locale, no clock, no terminal when --width is given), so
 * tests compare it with golden files.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "parse.h"
#include "points.h"
#include "report.h"
#include "verdict.h"

#define PLOT_WIDTH_MIN 20
#define PLOT_WIDTH_MAX 1000
#define PLOT_WIDTH_DEFAULT 80
#define PLOT_HEIGHT_MIN 3
#define PLOT_HEIGHT_MAX 200
/* 16 chart rows + 7 lines of title, axes and verdict fit a 24-line terminal */
#define PLOT_HEIGHT_DEFAULT 16
/* the chart needs a few columns besides the y labels */
#define PLOT_CHART_COLS_MIN 8

/* One sample as plotted: seconds since the phase began, the metric's value. */
struct plot_pt {
	double t_s;
	double v;
};

struct plot_data {
	struct plot_pt *pts;
	size_t n, cap;
	enum sample_metric metric;
	int64_t t0_ns; /* the phase's start; 0: the first sample's start */
	/* The steady window, in rounds (full samples, as store_series() counts
	 * them), and the times of its first and last round once seen. */
	size_t win_first, win_last;
	double win_first_s, win_last_s;
	size_t rounds;
	int64_t bad_seq; /* a sample whose value is not a finite number >= 0 */
	/* A partial sample after full rounds is the tail of a stopped or paused
	 * phase, mostly the queue draining: a dip that is not the drive's.
	 * Counted, not drawn (steady state never counts it either; `report`
	 * does the same). */
	size_t partial_skipped;
};

static int plot_collect(void *ctx, const struct sample *smp)
{
	struct plot_data *d = ctx;
	double v = sample_metric(smp, d->metric), t_s;

	if (!isfinite(v) || v < 0) {
		d->bad_seq = smp->seq;
		return -EBADMSG;
	}
	if (!d->t0_ns)
		d->t0_ns = smp->start_ns;
	if (smp->partial && d->rounds) {
		d->partial_skipped++;
		return 0;
	}
	/* a sample that ends before the phase's recorded start (a clock step)
	 * is drawn at 0 rather than off the chart */
	t_s = smp->end_ns > d->t0_ns ? (double)(smp->end_ns - d->t0_ns) / 1e9 : 0.0;
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 1024;
		struct plot_pt *p = realloc(d->pts, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		d->pts = p;
		d->cap = cap;
	}
	d->pts[d->n++] = (struct plot_pt){.t_s = t_s, .v = v};
	if (!smp->partial) {
		d->rounds++;
		if (d->rounds == d->win_first)
			d->win_first_s = t_s;
		if (d->rounds == d->win_last)
			d->win_last_s = t_s;
	}
	return 0;
}

/* --- the chart --- */

struct plot_chart {
	int width, height; /* characters: the whole chart, the plot area's rows */
	bool ascii;
	const char *unit; /* the metric's unit, above the y axis */
	bool window;	  /* mark the steady window */
	double win_first_s, win_last_s;
	const char *win_label; /* "window 7-11" */
};

/* A line as one UTF-8 string per column, emitted without trailing blanks. */
struct plot_line {
	const char **slot;
	int width;
};

static char plot_ascii_tab[128][2];
static char plot_braille_tab[256][4];

static void plot_tables_init(void)
{
	for (int c = 0; c < 128; c++)
		plot_ascii_tab[c][0] = (char)(c >= 32 && c < 127 ? c : '?');
	/* U+2800 + bits: E2, A0 + bits >> 6, 80 + (bits & 3F) */
	for (int b = 0; b < 256; b++) {
		plot_braille_tab[b][0] = (char)0xe2;
		plot_braille_tab[b][1] = (char)(0xa0 + (b >> 6));
		plot_braille_tab[b][2] = (char)(0x80 + (b & 0x3f));
	}
}

static void line_clear(struct plot_line *l)
{
	for (int i = 0; i < l->width; i++)
		l->slot[i] = " ";
}

static void line_put(struct plot_line *l, int col, const char *s)
{
	if (col >= 0 && col < l->width)
		l->slot[col] = s;
}

/* ASCII text at @col; returns the column after it */
static int line_text(struct plot_line *l, int col, const char *text)
{
	for (; *text; text++, col++)
		line_put(l, col, plot_ascii_tab[(unsigned char)*text & 0x7f]);
	return col;
}

static void line_emit(FILE *f, const struct plot_line *l)
{
	int end = l->width;

	while (end > 0 && !strcmp(l->slot[end - 1], " "))
		end--;
	for (int i = 0; i < end; i++)
		fputs(l->slot[i], f);
	fputc('\n', f);
}

/* The smallest 1, 2 or 5 times a power of ten that is >= @x (> 0). */
static double plot_nice(double x)
{
	double p = pow(10.0, floor(log10(x)));

	/* the tolerance keeps 2.0000000001 (a division's rounding) from
	 * becoming 5 */
	if (x <= p * (1 + 1e-9))
		return p;
	if (x <= 2 * p * (1 + 1e-9))
		return 2 * p;
	if (x <= 5 * p * (1 + 1e-9))
		return 5 * p;
	return 10 * p;
}

/* The next 1-2-5 step after @step. */
static double plot_nice_next(double step)
{
	return plot_nice(step * 1.5);
}

/* The largest 1-2-5 step below @step. */
static double plot_nice_prev(double step)
{
	double p = pow(10.0, floor(log10(step * (1 - 1e-9))));

	if (5 * p < step * (1 - 1e-9))
		return 5 * p;
	if (2 * p < step * (1 - 1e-9))
		return 2 * p;
	return p < step * (1 - 1e-9) ? p : p / 2;
}

/* Decimals that print multiples of @step exactly (at most 6). */
static int plot_decimals(double step)
{
	int dec = 0;
	double x = step;

	while (dec < 6 && fabs(x - round(x)) > 1e-6 * fmax(1.0, fabs(x))) {
		x *= 10;
		dec++;
	}
	return dec;
}

/* @v with @dec decimals, trailing zeros dropped: "0", "0.5", "102.5" */
static void plot_fmt_num(char *buf, size_t len, double v, int dec)
{
	char *dot;

	snprintf(buf, len, "%.*f", dec, v);
	dot = strchr(buf, '.');
	if (!dot)
		return;
	for (char *e = buf + strlen(buf) - 1; e > dot && *e == '0'; e--)
		*e = '\0';
	if (dot[1] == '\0')
		*dot = '\0';
	if (!strcmp(buf, "-0"))
		strcpy(buf, "0");
}

/* A y tick label: plain below 10000, else with a k, M or G suffix. */
static void plot_fmt_tick(char *buf, size_t len, double v, double step, double scale)
{
	static const struct {
		double scale;
		const char *suffix;
	} sfx[] = {{1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}};
	const char *s = "";
	char num[32];

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (scale == sfx[i].scale)
			s = sfx[i].suffix;
	plot_fmt_num(num, sizeof(num), v / scale, plot_decimals(step / scale));
	snprintf(buf, len, "%s%s", num, s);
}

struct plot_grid {
	int rows, cols; /* cells */
	int dx, dy;	/* dots per cell */
	unsigned char *cell;
};

static void grid_dot(struct plot_grid *g, int xd, int yd)
{
	/* braille dot bits by (column in cell, row in cell from the top) */
	static const unsigned char braille[2][4] = {{0x01, 0x02, 0x04, 0x40},
						    {0x08, 0x10, 0x20, 0x80}};
	int row, sub;

	if (xd < 0 || yd < 0 || xd >= g->cols * g->dx || yd >= g->rows * g->dy)
		return;
	row = g->rows - 1 - yd / g->dy;
	sub = g->dy - 1 - yd % g->dy;
	g->cell[row * g->cols + xd / g->dx] |=
		g->dx == 2 ? braille[xd % 2][sub] : (unsigned char)(1u << sub);
}

/* Dots of dot column @xd from height @ya to @yb (dot units, either order). */
static void grid_span(struct plot_grid *g, int xd, double ya, double yb)
{
	long a = lround(fmin(ya, yb)), b = lround(fmax(ya, yb));

	for (long y = a; y <= b; y++)
		grid_dot(g, xd, (int)y);
}

struct plot_col {
	bool has;
	double first, last, min, max; /* dot heights */
};

/* Draw @pts into @g: x from 0 to @tmax_s, y from @lo to @hi. */
static int grid_draw(struct plot_grid *g, const struct plot_pt *pts, size_t n, double tmax_s,
		     double lo, double hi)
{
	int ncols = g->cols * g->dx, prev = -1;
	double ymax = g->rows * g->dy - 1;
	struct plot_col *c = calloc((size_t)ncols, sizeof(*c));

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int x = (int)lround(pts[i].t_s / tmax_s * (ncols - 1));
		double y = (pts[i].v - lo) / (hi - lo) * ymax;

		if (x < 0)
			x = 0;
		if (x >= ncols)
			x = ncols - 1;
		if (!c[x].has) {
			c[x] = (struct plot_col){true, y, y, y, y};
			continue;
		}
		c[x].last = y;
		c[x].min = fmin(c[x].min, y);
		c[x].max = fmax(c[x].max, y);
	}
	for (int x = 0; x < ncols; x++) {
		if (!c[x].has)
			continue;
		grid_span(g, x, c[x].min, c[x].max);
		/* join the previous column's last value to this one's first:
		 * each dot column between them gets the half-steps on either
		 * side of its point on the line, so steep lines stay unbroken */
		for (int k = prev; prev >= 0 && k < x; k++) {
			double y0 = c[prev].last, y1 = c[x].first;
			double ya = y0 + (y1 - y0) * (k - prev) / (x - prev);
			double yb = y0 + (y1 - y0) * (k + 1 - prev) / (x - prev);
			double mid = (ya + yb) / 2;

			grid_span(g, k, ya, mid);
			grid_span(g, k + 1, mid, yb);
		}
		prev = x;
	}
	free(c);
	return 0;
}

/* Time axis unit: seconds up to 2 min, minutes up to 2 h, hours up to
 * 4 days, then days. */
static void plot_time_unit(double tmax_s, double *unit_s, const char **name)
{
	if (tmax_s <= 120) {
		*unit_s = 1;
		*name = "s";
	} else if (tmax_s <= 7200) {
		*unit_s = 60;
		*name = "min";
	} else if (tmax_s <= 4 * 86400) {
		*unit_s = 3600;
		*name = "h";
	} else {
		*unit_s = 86400;
		*name = "d";
	}
}

static int plot_render(FILE *out, const struct plot_chart *ch, const struct plot_pt *pts, size_t n)
{
	const char *vbar = ch->ascii ? "|" : "\u2502", *vtick = ch->ascii ? "+" : "\u2524";
	const char *corner = ch->ascii ? "+" : "\u2514", *hbar = ch->ascii ? "-" : "\u2500";
	const char *htick = ch->ascii ? "+" : "\u252c", *mark = ch->ascii ? "|" : "\u250a";
	static const char *const ascii_cells[4] = {" ", "'", ".", ":"};
	struct plot_grid g = {.rows = ch->height, .dx = ch->ascii ? 1 : 2, .dy = ch->ascii ? 2 : 4};
	char ylab[PLOT_HEIGHT_MAX][40], xlab[64], buf[64];
	const char *tunit_name;
	double vmin = INFINITY, vmax = -INFINITY, tmax_s = 0, lo, hi, step, first, scale, tunit_s;
	int gutter = 0, x0, nticks, ntarget, mark_a = -1, mark_b = -1, r;
	bool xtick[PLOT_WIDTH_MAX] = {0};
	struct plot_line line = {0};

	for (size_t i = 0; i < n; i++) {
		vmin = fmin(vmin, pts[i].v);
		vmax = fmax(vmax, pts[i].v);
		tmax_s = fmax(tmax_s, pts[i].t_s);
	}
	if (!(tmax_s > 0))
		tmax_s = 1;
	/* The axis spans the data exactly; a flat series gets +-5 % (rounded
	 * to a 1-2-5 step) or 0..1 at zero.  Ticks at 1-2-5 steps inside it,
	 * at most one every 2.5 rows and at least two. */
	if (vmax - vmin <= 1e-9 * fabs(vmax)) {
		double d = vmax > 0 ? plot_nice(vmax * 0.05) : 1;

		vmin = fmax(0, vmin - d);
		vmax += d;
	}
	lo = vmin;
	hi = vmax;
	ntarget = (int)(ch->height / 2.5) > 0 ? (int)(ch->height / 2.5) : 1;
	for (step = plot_nice((hi - lo) / ntarget);; step = plot_nice_prev(step)) {
		first = ceil(lo / step * (1 - 1e-12));
		nticks = (int)(floor(hi / step * (1 + 1e-12)) - first) + 1;
		if (nticks >= 2)
			break;
	}
	scale = fmax(fabs(lo), fabs(hi)) >= 1e9	  ? 1e9
		: fmax(fabs(lo), fabs(hi)) >= 1e6 ? 1e6
		: fmax(fabs(lo), fabs(hi)) >= 1e4 ? 1e3
						  : 1;
	memset(ylab, 0, sizeof(ylab));
	for (int k = 0; k < nticks; k++) {
		double v = (first + k) * step;
		long yd = lround((v - lo) / (hi - lo) * (ch->height * g.dy - 1));
		int row = ch->height - 1 - (int)(yd / g.dy);

		if (row < 0 || row >= ch->height || ylab[row][0])
			continue;
		plot_fmt_tick(ylab[row], sizeof(ylab[row]), v, step, scale);
		if ((int)strlen(ylab[row]) > gutter)
			gutter = (int)strlen(ylab[row]);
	}
	/* gutter, a blank, the axis, the cells */
	x0 = gutter + 2;
	g.cols = ch->width - x0;
	if (g.cols < PLOT_CHART_COLS_MIN)
		return cli_error(CLI_USAGE, "--width %d leaves no room for the chart", ch->width);
	g.cell = calloc((size_t)(g.rows * g.cols), 1);
	line.width = ch->width;
	line.slot = calloc((size_t)ch->width, sizeof(*line.slot));
	if (!g.cell || !line.slot || grid_draw(&g, pts, n, tmax_s, lo, hi)) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}
	if (ch->window) {
		int ncols = g.cols * g.dx;

		mark_a = (int)lround(ch->win_first_s / tmax_s * (ncols - 1)) / g.dx;
		mark_b = (int)lround(ch->win_last_s / tmax_s * (ncols - 1)) / g.dx;
	}

	/* the unit over the y labels, then the rows */
	line_clear(&line);
	line_text(&line, gutter > (int)strlen(ch->unit) ? gutter - (int)strlen(ch->unit) : 0,
		  ch->unit);
	line_emit(out, &line);
	for (int row = 0; row < ch->height; row++) {
		line_clear(&line);
		line_text(&line, gutter - (int)strlen(ylab[row]), ylab[row]);
		line_put(&line, x0 - 1, ylab[row][0] ? vtick : vbar);
		for (int c = 0; c < g.cols; c++) {
			unsigned char bits = g.cell[row * g.cols + c];

			if (bits)
				line_put(&line, x0 + c,
					 ch->ascii ? ascii_cells[bits & 3]
						   : plot_braille_tab[bits]);
			else if (c == mark_a || c == mark_b)
				line_put(&line, x0 + c, mark);
		}
		line_emit(out, &line);
	}

	/* the time axis: ticks at 1-2-5 steps of s, min, h or d, at least
	 * four blanks between labels, the unit after the last label */
	plot_time_unit(tmax_s, &tunit_s, &tunit_name);
	{
		double tu = tmax_s / tunit_s, tstep = plot_nice(tu / 20);
		int ncols = g.cols * g.dx, last_end = -1, dec;

		for (;; tstep = plot_nice_next(tstep)) {
			int width = 0;
			double span;

			dec = plot_decimals(tstep);
			for (double t = 0; t <= tu * (1 + 1e-9); t += tstep) {
				plot_fmt_num(buf, sizeof(buf), t, dec);
				width = (int)strlen(buf) > width ? (int)strlen(buf) : width;
			}
			span = tstep / tu * (ncols - 1) / g.dx;
			if (span >= width + 4 || tstep >= tu)
				break;
		}
		line_clear(&line);
		line_put(&line, x0 - 1, corner);
		for (int c = 0; c < g.cols; c++)
			line_put(&line, x0 + c, hbar);
		for (int k = 0; k * tstep <= tu * (1 + 1e-9); k++) {
			int c = (int)lround(k * tstep / tu * (ncols - 1)) / g.dx;

			if (c >= 0 && c < g.cols) {
				xtick[c] = true;
				line_put(&line, x0 + c, htick);
			}
		}
		line_emit(out, &line);

		line_clear(&line);
		for (int k = 0; k * tstep <= tu * (1 + 1e-9); k++) {
			int c = (int)lround(k * tstep / tu * (ncols - 1)) / g.dx;

			if (c < 0 || c >= g.cols || !xtick[c])
				continue;
			plot_fmt_num(xlab, sizeof(xlab), k * tstep, dec);
			/* room for this label, a blank and the unit */
			if (x0 + c + (int)strlen(xlab) + 1 + (int)strlen(tunit_name) > ch->width)
				break;
			if (last_end >= 0 && x0 + c <= last_end)
				continue;
			last_end = line_text(&line, x0 + c, xlab);
		}
		if (last_end < 0) /* not even "0" fits with the unit: the unit alone */
			last_end = x0 - 1;
		line_text(&line, last_end + 1, tunit_name);
		line_emit(out, &line);
	}

	/* the window under the axis: a bracket from its first round to its last */
	if (ch->window) {
		int len = (int)strlen(ch->win_label), inner = mark_b - mark_a - 1;

		line_clear(&line);
		if (mark_b == mark_a) {
			line_put(&line, x0 + mark_a, ch->ascii ? "^" : "\u25b2");
		} else {
			line_put(&line, x0 + mark_a, ch->ascii ? "[" : "\u251c");
			line_put(&line, x0 + mark_b, ch->ascii ? "]" : "\u2524");
			for (int c = mark_a + 1; c < mark_b; c++)
				line_put(&line, x0 + c, ch->ascii ? "=" : "\u2500");
		}
		if (inner >= len + 2) {
			int at = mark_a + 1 + (inner - len) / 2;

			line_put(&line, x0 + at - 1, " ");
			line_text(&line, x0 + at, ch->win_label);
			line_put(&line, x0 + at + len, " ");
		} else if (x0 + mark_b + 2 + len <= ch->width) {
			line_text(&line, x0 + mark_b + 2, ch->win_label);
		} else if (x0 + mark_a - 2 - len >= 0) {
			line_text(&line, x0 + mark_a - 1 - len, ch->win_label);
		}
		line_emit(out, &line);
	}
	r = CLI_OK;
out:
	free(g.cell);
	free(line.slot);
	return r;
}

/* --- the command --- */

/* The width to fill: the terminal's (stdout), else $COLUMNS, else 80. */
static int plot_auto_width(void)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");
	uint64_t v;

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		v = ws.ws_col;
	else if (!cols || parse_uint_range(cols, 1, 100000, &v))
		v = PLOT_WIDTH_DEFAULT;
	return v < PLOT_WIDTH_MIN ? PLOT_WIDTH_MIN : v > PLOT_WIDTH_MAX ? PLOT_WIDTH_MAX : (int)v;
}

/* @src for the terminal: control characters (an escape sequence in a run
 * name) become '?' */
static char *plot_clean(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; src[i] && i + 1 < len; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? '?' : src[i];
	dst[i] = '\0';
	return dst;
}

/*
 * Parts joined with @sep (", " or "; ") into lines no wider than @width: a
 * part goes whole on the current line or the next; one wider than a line is
 * broken at its blanks (a single word wider than @width overflows).
 */
static void plot_wrap(FILE *out, int width, const char *sep, const char *const *parts, size_t n)
{
	int col = 0, seplen = (int)strlen(sep);

	for (size_t i = 0; i < n; i++) {
		const char *w = parts[i];
		int len = (int)strlen(w);

		if (!len)
			continue;
		if (col && col + seplen + len <= width) {
			fprintf(out, "%s%s", sep, w);
			col += seplen + len;
			continue;
		}
		if (col && len <= width) {
			fprintf(out, "%.1s\n%s", sep, w);
			col = len;
			continue;
		}
		/* word by word */
		for (bool first = true; *w; first = false) {
			int wl = (int)strcspn(w, " ");
			const char *gap = first ? (col ? sep : "") : " ";
			int gl = (int)strlen(gap);

			if (col && col + gl + wl > width) {
				fprintf(out, "%.*s\n", first ? 1 : 0, gap);
				col = 0;
				gap = "";
				gl = 0;
			}
			fprintf(out, "%s%.*s", gap, wl, w);
			col += gl + wl;
			w += wl;
			w += strspn(w, " ");
		}
	}
	fputc('\n', out);
}

/* The verdict of a precondition phase as `plateau show` gives it. */
struct plot_verdict {
	bool judged;
	struct verdict v; /* v.phase.none: the plan judges none, judged as `show` does */
};

static int plot_judge(struct store *s, const struct store_phase *p, struct plot_verdict *pv)
{
	char err[512];
	int r;

	r = verdict_judge_phase(s, p, NULL, 0, &pv->v, err, sizeof(err));
	verdict_free(&pv->v);
	if (r)
		return cli_error(CLI_USAGE, "%s", err);
	pv->judged = true;
	return CLI_OK;
}

/* The verdict and how it was judged, wrapped to @width. */
static void plot_verdict_line(FILE *out, int width, const struct plot_verdict *v,
			      const struct store_phase *p)
{
	const struct steady_result *a = &v->v.all;
	char verdict[160], how[192], metrics[128] = "", kind[16];
	const char *parts[2] = {verdict, how};

	if (!v->judged) {
		fprintf(out, "steady state: not judged (a %s phase)\n",
			plot_clean(kind, sizeof(kind), p->kind));
		return;
	}
	for (size_t k = 0; k < v->v.nmetrics; k++)
		snprintf(metrics + strlen(metrics), sizeof(metrics) - strlen(metrics), "%s%s",
			 k ? "," : "", sample_metric_name((enum sample_metric)v->v.metrics[k]));
	if (a->steady)
		snprintf(verdict, sizeof(verdict), "steady at round %zu (window %zu-%zu)",
			 a->steady_round, a->window_start, a->window_end);
	else
		snprintf(verdict, sizeof(verdict), "not steady after %zu round%s%s", a->rounds,
			 a->rounds == 1 ? "" : "s", a->capped ? " (max-rounds reached)" : "");
	if (a->lost)
		snprintf(verdict + strlen(verdict), sizeof(verdict) - strlen(verdict),
			 ", lost at round %zu", a->lost_round);
	snprintf(how, sizeof(how), "%s on %s, window %u rounds%s",
		 steady_criterion_name(v->v.p.criterion), metrics, v->v.p.window,
		 v->v.phase.none ? " (the plan judges none)" : "");
	plot_wrap(out, width, "; ", parts, 2);
}

/* --- sweeps: the load points against their load --- */

/* --x: the queue depth (a categorical axis, one position per depth), or a
 * metric (a linear axis from 0) */
#define SWEEP_X_QD (-1)
/* or the thread count (categorical too, a line per queue depth) */
#define SWEEP_X_THREADS (-4)
#define SWEEP_CATEGORICAL(xm) ((xm) == SWEEP_X_QD || (xm) == SWEEP_X_THREADS)
/* plot's --x besides: the time (the samples of any phase), or not given */
#define PLOT_X_TIME (-2)
#define PLOT_X_DEFAULT (-3)

struct sweep_pt {
	int seq;
	unsigned int threads, iodepth;
	/* the line it is on and its category on a categorical x axis:
	 * threads and iodepth, or iodepth and threads for SWEEP_X_THREADS */
	unsigned int line, cat;
	double x, y;
};

struct sweep_data {
	struct sweep_pt *pts;
	size_t n, cap;
	int xm; /* SWEEP_X_QD or an enum sample_metric */
	enum sample_metric ym;
	int bad_seq; /* a point whose value is not a finite number >= 0 */
};

static int sweep_collect(void *ctx, const struct store_point *pt)
{
	struct sweep_data *d = ctx;
	struct sweep_pt p = {
		.seq = pt->seq,
		.threads = pt->threads,
		.iodepth = pt->iodepth,
		.x = SWEEP_CATEGORICAL(d->xm) ? 0
					      : sample_metric(&pt->smp, (enum sample_metric)d->xm),
		.y = sample_metric(&pt->smp, d->ym),
	};

	if (!isfinite(p.x) || p.x < 0 || !isfinite(p.y) || p.y < 0) {
		d->bad_seq = pt->seq;
		return -EBADMSG;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct sweep_pt *np = realloc(d->pts, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		d->pts = np;
		d->cap = cap;
	}
	d->pts[d->n++] = p;
	return 0;
}

/* a line per thread count, its points in the order of their load */
static int sweep_cmp(const void *a, const void *b)
{
	const struct sweep_pt *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int sweep_cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

/* The markers of the lines, in order of thread count; then they repeat. */
/* (no "+", an ASCII axis tick; no letters that look like "o" or "x") */
static const char sweep_markers[] = "*ox#@%&$=~ABCDEFGHIJKLMNPQRSTUVWYZ";
#define SWEEP_NMARKERS ((int)sizeof(sweep_markers) - 1)
static char sweep_marker_str[SWEEP_NMARKERS][2];

/* Ticks of a linear axis from 0 to @hi: a 1-2-5 @step and the k/M/G
 * @scale of its labels; at most about @target ticks, at least two. */
static void sweep_ticks(double hi, int target, double *step, double *scale)
{
	if (target < 1)
		target = 1;
	for (*step = plot_nice(hi / target); floor(hi / *step * (1 + 1e-12)) < 1;)
		*step = plot_nice_prev(*step);
	*scale = hi >= 1e9 ? 1e9 : hi >= 1e6 ? 1e6 : hi >= 1e4 ? 1e3 : 1;
}

/* a tick label of a sweep's axis: plot_fmt_tick(), but 0 is "0", not "0k" */
static void sweep_fmt_tick(char *buf, size_t len, double v, double step, double scale)
{
	if (v == 0)
		snprintf(buf, len, "0");
	else
		plot_fmt_tick(buf, len, v, step, scale);
}

static int sweep_render(FILE *out, const struct plot_chart *ch, struct sweep_data *d,
			const char *xunit)
{
	const char *vbar = ch->ascii ? "|" : "\u2502", *vtick = ch->ascii ? "+" : "\u2524";
	const char *corner = ch->ascii ? "+" : "\u2514", *hbar = ch->ascii ? "-" : "\u2500";
	const char *htick = ch->ascii ? "+" : "\u252c", *dot = ch->ascii ? "." : "\u00b7";
	char ylab[PLOT_HEIGHT_MAX][40], buf[64];
	double yhi = 0, xhi = 0, ystep, yscale, xstep = 1, xscale = 1;
	unsigned int *qds = NULL;
	size_t nqd = 0, nlines = 0;
	int gutter = 0, x0, cols, rows = ch->height, r = CLI_OK, *col = NULL, *row = NULL;
	const char **cell = NULL;
	struct plot_line line = {0};
	char **legend = NULL;

	qsort(d->pts, d->n, sizeof(*d->pts), sweep_cmp);
	for (int i = 0; i < SWEEP_NMARKERS; i++)
		sweep_marker_str[i][0] = sweep_markers[i];
	qds = malloc(d->n * sizeof(*qds));
	col = malloc(d->n * sizeof(*col));
	row = malloc(d->n * sizeof(*row));
	legend = calloc(d->n, sizeof(*legend));
	if (!qds || !col || !row || !legend) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < d->n; i++) {
		yhi = fmax(yhi, d->pts[i].y);
		xhi = fmax(xhi, d->pts[i].x);
		qds[i] = d->pts[i].cat;
	}
	/* the distinct queue depths, in order: the positions of a QD axis */
	qsort(qds, d->n, sizeof(*qds), sweep_cmp_uint);
	for (size_t i = 0; i < d->n; i++)
		if (!nqd || qds[nqd - 1] != qds[i])
			qds[nqd++] = qds[i];
	/* both axes from 0: a sweep is read against the origin */
	if (!(yhi > 0))
		yhi = 1;
	if (!(xhi > 0))
		xhi = 1;

	sweep_ticks(yhi, (int)(rows / 2.5), &ystep, &yscale);
	memset(ylab, 0, sizeof(ylab));
	for (int k = 0; k * ystep <= yhi * (1 + 1e-12); k++) {
		int rr = rows - 1 - (int)lround(k * ystep / yhi * (rows - 1));

		if (rr < 0 || rr >= rows || ylab[rr][0])
			continue;
		sweep_fmt_tick(ylab[rr], sizeof(ylab[rr]), k * ystep, ystep, yscale);
		if ((int)strlen(ylab[rr]) > gutter)
			gutter = (int)strlen(ylab[rr]);
	}
	x0 = gutter + 2;
	cols = ch->width - x0;
	if (SWEEP_CATEGORICAL(d->xm)) {
		/* the last category's label and the unit after the last column */
		snprintf(buf, sizeof(buf), "%u", qds[nqd - 1]);
		cols -= (int)strlen(buf) + (int)strlen(xunit);
	}
	if (cols < PLOT_CHART_COLS_MIN) {
		r = cli_error(CLI_USAGE, "--width %d leaves no room for the chart", ch->width);
		goto out;
	}
	cell = calloc((size_t)rows * (size_t)cols, sizeof(*cell));
	line.width = ch->width;
	line.slot = calloc((size_t)ch->width, sizeof(*line.slot));
	if (!cell || !line.slot) {
		r = cli_error(CLI_USAGE, "out of memory");
		goto out;
	}

	/* each point's cell */
	for (size_t i = 0; i < d->n; i++) {
		const struct sweep_pt *p = &d->pts[i];

		if (SWEEP_CATEGORICAL(d->xm)) {
			size_t k = 0;

			while (qds[k] != p->cat)
				k++;
			col[i] = nqd > 1 ? (int)lround((double)k / (double)(nqd - 1) * (cols - 1))
					 : cols / 2;
		} else {
			col[i] = (int)lround(p->x / xhi * (cols - 1));
		}
		row[i] = rows - 1 - (int)lround(p->y / yhi * (rows - 1));
	}
	/* the lines between a thread count's points, then the markers over them */
	for (size_t i = 1; i < d->n; i++) {
		int dc = col[i] - col[i - 1], dr = row[i] - row[i - 1];
		int steps = abs(dc) > abs(dr) ? abs(dc) : abs(dr);

		if (d->pts[i].line != d->pts[i - 1].line)
			continue;
		for (int s = 1; s < steps; s++) {
			int c = col[i - 1] + (int)lround((double)dc * s / steps);
			int rr = row[i - 1] + (int)lround((double)dr * s / steps);

			cell[rr * cols + c] = dot;
		}
	}
	for (size_t i = 0; i < d->n; i++) {
		if (i && d->pts[i].line != d->pts[i - 1].line)
			nlines++;
		cell[row[i] * cols + col[i]] = sweep_marker_str[nlines % SWEEP_NMARKERS];
		if (!i || d->pts[i].line != d->pts[i - 1].line) {
			unsigned int l = d->pts[i].line;
			int n = d->xm == SWEEP_X_THREADS
					? asprintf(&legend[nlines], "%s%c QD %u",
						   nlines ? "" : "lines: ",
						   sweep_markers[nlines % SWEEP_NMARKERS], l)
					: asprintf(&legend[nlines], "%s%c %u thread%s",
						   nlines ? "" : "lines: ",
						   sweep_markers[nlines % SWEEP_NMARKERS], l,
						   l == 1 ? "" : "s");

			if (n < 0) {
				legend[nlines] = NULL;
				r = cli_error(CLI_USAGE, "out of memory");
				goto out;
			}
		}
	}
	nlines++;

	/* the unit over the y labels, then the rows */
	line_clear(&line);
	line_text(&line, gutter > (int)strlen(ch->unit) ? gutter - (int)strlen(ch->unit) : 0,
		  ch->unit);
	line_emit(out, &line);
	for (int rr = 0; rr < rows; rr++) {
		line_clear(&line);
		line_text(&line, gutter - (int)strlen(ylab[rr]), ylab[rr]);
		line_put(&line, x0 - 1, ylab[rr][0] ? vtick : vbar);
		for (int c = 0; c < cols; c++)
			if (cell[rr * cols + c])
				line_put(&line, x0 + c, cell[rr * cols + c]);
		line_emit(out, &line);
	}

	/* the x axis: a tick and a label per queue depth, or at 1-2-5 steps
	 * of the metric; labels that would overlap are left out, the unit
	 * follows the last one */
	{
		size_t nticks;
		int last_end = -1;

		if (!SWEEP_CATEGORICAL(d->xm)) {
			/* labels at least four blanks apart */
			for (sweep_ticks(xhi, cols / 8, &xstep, &xscale);;
			     xstep = plot_nice_next(xstep)) {
				int wmax = 0;

				for (int k = 0; k * xstep <= xhi * (1 + 1e-12); k++) {
					sweep_fmt_tick(buf, sizeof(buf), k * xstep, xstep, xscale);
					wmax = (int)strlen(buf) > wmax ? (int)strlen(buf) : wmax;
				}
				if (xstep / xhi * (cols - 1) >= wmax + 4 || xstep >= xhi)
					break;
			}
			if (xstep > xhi) /* one step past the data: 0 alone */
				xstep = xhi;
		}
		nticks = SWEEP_CATEGORICAL(d->xm) ? nqd
						  : (size_t)floor(xhi / xstep * (1 + 1e-12)) + 1;
		line_clear(&line);
		line_put(&line, x0 - 1, corner);
		for (int c = 0; c < cols; c++)
			line_put(&line, x0 + c, hbar);
		for (size_t k = 0; k < nticks; k++) {
			int c = SWEEP_CATEGORICAL(d->xm)
					? (nqd > 1 ? (int)lround((double)k / (double)(nqd - 1) *
								 (cols - 1))
						   : cols / 2)
					: (int)lround(k * xstep / xhi * (cols - 1));

			line_put(&line, x0 + c, htick);
		}
		line_emit(out, &line);
		line_clear(&line);
		for (size_t k = 0; k < nticks; k++) {
			int c;

			if (SWEEP_CATEGORICAL(d->xm)) {
				c = nqd > 1 ? (int)lround((double)k / (double)(nqd - 1) *
							  (cols - 1))
					    : cols / 2;
				snprintf(buf, sizeof(buf), "%u", qds[k]);
			} else {
				c = (int)lround(k * xstep / xhi * (cols - 1));
				sweep_fmt_tick(buf, sizeof(buf), k * xstep, xstep, xscale);
			}
			if (x0 + c + (int)strlen(buf) + 1 + (int)strlen(xunit) > ch->width)
				break;
			if (last_end >= 0 && x0 + c <= last_end)
				continue;
			last_end = line_text(&line, x0 + c, buf);
		}
		if (last_end < 0)
			last_end = x0 - 1;
		line_text(&line, last_end + 1, xunit);
		line_emit(out, &line);
	}

	/* the legend: a marker per thread count */
	plot_wrap(out, ch->width, ", ", (const char *const *)legend, nlines);
out:
	for (size_t i = 0; legend && i < d->n; i++)
		free(legend[i]);
	free(legend);
	free(cell);
	free(line.slot);
	free(qds);
	free(col);
	free(row);
	return r;
}

/* The load points of sweep phase @ph->p against their load. */
static int plot_sweep(struct cli_phase *ph, struct plot_chart *ch, int xm, int ym)
{
	struct sweep_data d = {.xm = xm == PLOT_X_DEFAULT ? SWEEP_X_QD : xm};
	struct rep_workload wl;
	char t_run[192], t_phase[192], t_metric[160], c1[128], c2[16], c3[64];
	const char *parts[3], *xunit;
	bool one_qd = true, one_threads = true;
	int r;

	/* against the load, throughput (MB/s when every transfer is large, as
	 * the report draws it: rep_workload()); against a metric (demand
	 * intensity), latency */
	rep_workload(ph->p, &wl);
	d.ym = ym >= 0			  ? (enum sample_metric)ym
	       : !SWEEP_CATEGORICAL(d.xm) ? SAMPLE_METRIC_LAT
	       : wl.large		  ? SAMPLE_METRIC_BW
					  : SAMPLE_METRIC_IOPS;
	r = store_points_foreach(ph->s, ph->p->id, 0, sweep_collect, &d);
	if (r == -EBADMSG && d.bad_seq) {
		r = cli_error(CLI_USAGE, "run %lld phase %d load point %d: %s is not a number >= 0",
			      (long long)ph->run.id, ph->p->seq, d.bad_seq,
			      sample_metric_name(
				      SWEEP_CATEGORICAL(d.xm) ? d.ym : (enum sample_metric)d.xm));
		goto out;
	}
	if (r) {
		r = cli_error(CLI_USAGE, "%s",
			      r == -ENOMEM ? "out of memory" : store_errmsg(ph->s));
		goto out;
	}
	if (!d.n) {
		r = cli_error(CLI_NOTFOUND,
			      "run %lld phase %d (sweep) has no load point measured yet",
			      (long long)ph->run.id, ph->p->seq);
		goto out;
	}
	for (size_t i = 1; i < d.n; i++) {
		one_qd = one_qd && d.pts[i].iodepth == d.pts[0].iodepth;
		one_threads = one_threads && d.pts[i].threads == d.pts[0].threads;
	}
	/* a thread-scaling sweep at one queue depth is read against threads */
	if (xm == PLOT_X_DEFAULT && one_qd && !one_threads)
		d.xm = SWEEP_X_THREADS;
	for (size_t i = 0; i < d.n; i++) {
		bool t = d.xm == SWEEP_X_THREADS;

		d.pts[i].line = t ? d.pts[i].iodepth : d.pts[i].threads;
		d.pts[i].cat = t ? d.pts[i].threads : d.pts[i].iodepth;
	}
	snprintf(t_run, sizeof(t_run), "run %lld%s%s", (long long)ph->run.id,
		 *ph->run.name ? " " : "", plot_clean(c1, sizeof(c1), ph->run.name));
	snprintf(t_phase, sizeof(t_phase), "phase %d %s%s%s", ph->p->seq,
		 plot_clean(c2, sizeof(c2), ph->p->kind), *ph->p->name ? " " : "",
		 plot_clean(c3, sizeof(c3), ph->p->name));
	if (SWEEP_CATEGORICAL(d.xm))
		snprintf(t_metric, sizeof(t_metric), "%s (%s) against %s, %zu load point%s",
			 sample_metric_name(d.ym), sample_metric_unit(d.ym),
			 d.xm == SWEEP_X_QD ? "queue depth" : "threads", d.n, d.n == 1 ? "" : "s");
	else
		snprintf(t_metric, sizeof(t_metric), "%s (%s) against %s (%s), %zu load point%s",
			 sample_metric_name(d.ym), sample_metric_unit(d.ym),
			 sample_metric_name((enum sample_metric)d.xm),
			 sample_metric_unit((enum sample_metric)d.xm), d.n, d.n == 1 ? "" : "s");
	parts[0] = t_run;
	parts[1] = t_phase;
	parts[2] = t_metric;
	plot_wrap(stdout, ch->width, ", ", parts, 3);
	ch->unit = sample_metric_unit(d.ym);
	xunit = d.xm == SWEEP_X_QD	  ? "QD"
		: d.xm == SWEEP_X_THREADS ? "threads"
					  : sample_metric_unit((enum sample_metric)d.xm);
	r = sweep_render(stdout, ch, &d, xunit);
out:
	free(d.pts);
	return r;
}

int cmd_plot(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{"phase", required_argument, NULL, 'p'},
		{"metric", required_argument, NULL, 'm'},
		{"width", required_argument, NULL, 'w'},
		{"height", required_argument, NULL, 'h'},
		{"ascii", no_argument, NULL, 'a'},
		{"x", required_argument, NULL, 'x'},
		{NULL, 0, NULL, 0},
	};
	struct plot_chart ch = {.height = PLOT_HEIGHT_DEFAULT};
	struct plot_data d = {.metric = SAMPLE_METRIC_IOPS};
	struct plot_verdict v = {0};
	struct store_phase *p;
	struct cli_phase ph;
	uint64_t phase_seq = 0, u;
	char t_run[192], t_phase[192], t_metric[96], win_label[64], c1[128], c2[16], c3[64];
	char skipped[48] = "";
	const char *parts[3];
	int64_t run_id, count;
	struct store *s;
	int opt, r, m, xm = PLOT_X_DEFAULT, ym = -1;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if ((r = cli_parse_phase(optarg, &phase_seq)))
				return r;
			break;
		case 'm':
			m = sample_metric_parse(optarg);
			if (m < 0)
				return cli_error(
					CLI_USAGE,
					"--metric: unknown metric '%s' (expected one of %s)",
					optarg, sample_metric_names());
			d.metric = (enum sample_metric)m;
			ym = m;
			break;
		case 'x':
			xm = !strcmp(optarg, "time")	  ? PLOT_X_TIME
			     : !strcmp(optarg, "qd")	  ? SWEEP_X_QD
			     : !strcmp(optarg, "threads") ? SWEEP_X_THREADS
							  : sample_metric_parse(optarg);
			if (xm == -EINVAL)
				return cli_error(CLI_USAGE,
						 "--x: expected time, qd, threads or a metric "
						 "(%s), not '%s'",
						 sample_metric_names(), optarg);
			break;
		case 'w':
		case 'h':
			if (parse_uint_range(optarg, opt == 'w' ? PLOT_WIDTH_MIN : PLOT_HEIGHT_MIN,
					     opt == 'w' ? PLOT_WIDTH_MAX : PLOT_HEIGHT_MAX, &u))
				return cli_error(
					CLI_USAGE, "--%s: expected %d to %d characters, not '%s'",
					opt == 'w' ? "width" : "height",
					opt == 'w' ? PLOT_WIDTH_MIN : PLOT_HEIGHT_MIN,
					opt == 'w' ? PLOT_WIDTH_MAX : PLOT_HEIGHT_MAX, optarg);
			*(opt == 'w' ? &ch.width : &ch.height) = (int)u;
			break;
		case 'a':
			ch.ascii = true;
			break;
		default:
			return cli_bad_option("plot", argv);
		}
	}
	if (optind != argc - 1)
		return cli_usage("plot");
	if ((r = cli_find_run(cli, argv[optind], &run_id)))
		return r;
	if (!ch.width)
		ch.width = plot_auto_width();
	plot_tables_init();

	if ((r = cli_open_phase(cli, run_id, (int)phase_seq, &ph)))
		return r;
	s = ph.s;
	p = ph.p;
	/* a read. (write.) metric of a phase that never read (wrote) would
	 * draw zeros as if measured */
	{
		int asked[2], nasked = 0;

		if (ym >= 0)
			asked[nasked++] = ym;
		if (xm >= 0)
			asked[nasked++] = xm;
		if ((r = points_need_metric_io(&ph, asked, (size_t)nasked)))
			goto out;
	}
	/* a sweep is drawn against its load unless --x time asks for its
	 * samples over time; anything else only over time */
	if (!strcmp(p->kind, "sweep") && xm != PLOT_X_TIME) {
		r = plot_sweep(&ph, &ch, xm, ym);
		goto out;
	}
	if (xm != PLOT_X_DEFAULT && xm != PLOT_X_TIME) {
		r = cli_error(CLI_USAGE,
			      "--x %s: run %lld phase %d is a %s phase; only a sweep's load "
			      "points are drawn against their load",
			      xm == SWEEP_X_QD	      ? "qd"
			      : xm == SWEEP_X_THREADS ? "threads"
						      : sample_metric_name((enum sample_metric)xm),
			      (long long)run_id, p->seq, p->kind);
		goto out;
	}
	count = store_sample_count(s, p->id);
	if (count < 0) {
		r = cli_error(CLI_USAGE, "%s", store_errmsg(s));
		goto out;
	}
	if (!count) {
		r = cli_error(CLI_NOTFOUND, "run %lld phase %d (%s) has no samples%s",
			      (long long)run_id, p->seq, p->kind,
			      !strcmp(p->kind, "sweep")
				      ? " (its load points: plateau plot without --x time)"
				      : "");
		goto out;
	}
	if (!strcmp(p->kind, "precondition")) {
		if ((r = plot_judge(s, p, &v)))
			goto out;
		if (v.v.all.steady) {
			d.win_first = v.v.all.window_start;
			d.win_last = v.v.all.window_end;
		}
	}
	d.t0_ns = p->started_ns;
	r = store_samples_foreach(s, p->id, 1, 0, plot_collect, &d);
	if (r == -EBADMSG && d.bad_seq) {
		r = cli_error(CLI_USAGE, "run %lld phase %d sample %lld: %s is not a number >= 0",
			      (long long)run_id, p->seq, (long long)d.bad_seq,
			      sample_metric_name(d.metric));
		goto out;
	}
	if (r) {
		r = cli_error(CLI_USAGE, "%s", r == -ENOMEM ? "out of memory" : store_errmsg(s));
		goto out;
	}
	if (!d.n) { /* deleted between the count and the read */
		r = cli_error(CLI_NOTFOUND, "run %lld phase %d has no samples", (long long)run_id,
			      p->seq);
		goto out;
	}

	snprintf(t_run, sizeof(t_run), "run %lld%s%s", (long long)ph.run.id,
		 *ph.run.name ? " " : "", plot_clean(c1, sizeof(c1), ph.run.name));
	snprintf(t_phase, sizeof(t_phase), "phase %d %s%s%s", p->seq,
		 plot_clean(c2, sizeof(c2), p->kind), *p->name ? " " : "",
		 plot_clean(c3, sizeof(c3), p->name));
	if (d.partial_skipped)
		snprintf(skipped, sizeof(skipped), " (%zu partial not drawn)", d.partial_skipped);
	snprintf(t_metric, sizeof(t_metric), "%s (%s), %zu sample%s%s",
		 sample_metric_name(d.metric), sample_metric_unit(d.metric), d.n,
		 d.n == 1 ? "" : "s", skipped);
	parts[0] = t_run;
	parts[1] = t_phase;
	parts[2] = t_metric;
	plot_wrap(stdout, ch.width, ", ", parts, 3);

	ch.unit = sample_metric_unit(d.metric);
	/* both rounds are seen unless samples changed between the judgement
	 * and the read; then there is no window to mark */
	ch.window = v.judged && v.v.all.steady && d.rounds >= d.win_last;
	ch.win_first_s = d.win_first_s;
	ch.win_last_s = d.win_last_s;
	snprintf(win_label, sizeof(win_label), "window %zu-%zu", d.win_first, d.win_last);
	ch.win_label = win_label;
	if ((r = plot_render(stdout, &ch, d.pts, d.n)))
		goto out;
	plot_verdict_line(stdout, ch.width, &v, p);
out:
	free(d.pts);
	cli_close_phase(&ph);
	return r;
}

const struct cli_cmd cli_cmd_plot = {
	"plot",
	"RUN [--phase N] [--metric M] [--x qd|threads|time|M]\n"
	"       [--width N] [--height N] [--ascii]",
	"a phase's curve in the terminal; a sweep's points against load",
	"  --phase N           phase number (see `plateau show`); default: the last\n"
	"                      preconditioning phase with samples\n"
	"  --metric M          the y axis: iops (default; bw for a sweep whose every\n"
	"                      transfer is 64 KiB or more), lat, p99.9, read.p99,\n"
	"                      write.lat-max, ... (any metric: plateau(1), METRICS)\n"
	"  --x X               a sweep's x axis: qd (default: one line per thread\n"
	"                      count against queue depth), threads (a line per queue\n"
	"                      depth; the default for a sweep at one queue depth), a\n"
	"                      metric (iops: latency against IOPS, demand intensity;\n"
	"                      y defaults to lat), or time (its samples over time)\n"
	"  --width N           characters (default: the terminal's, $COLUMNS, or 80)\n"
	"  --height N          rows of the plot area (default 16)\n"
	"  --ascii             plain characters instead of Unicode braille\n"
	"  Exit status: 0 drawn; 2 bad option, or a read. (write.) metric of a phase\n"
	"  without reads (writes); 3 no such run or phase, or no samples (a sweep:\n"
	"  no load point measured).\n",
	cmd_plot,
	CLI_FMT_NONE};
