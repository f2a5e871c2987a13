/* SPDX-License-Identifier: MIT */
/*
 * report.js: draws the charts of a `plateau report` page with uPlot, from
 * the JSON in <script id="plateau-data"> (written by tools/report.c).
 *
 * Every <div data-chart> becomes one chart.  When a chart has drawn for the
 * first time it is counted: <body data-charts-expected="N"
 * data-charts-drawn="M" data-charts-state="drawing|done|error"> tells a
 * test (or a curious reader) that all of them rendered.  Nothing is logged
 * to the console unless a chart fails.
 */
(function () {
	"use strict";

	var body = document.body;
	var data = JSON.parse(document.getElementById("plateau-data").textContent);
	var expected = data.charts || 0;
	var drawn = 0;
	var failed = 0;
	var plots = [];
	var printing = false;
	/* CSS pixels: the width of a chart on paper (A4 or Letter, 12 mm margins) */
	var PRINT_WIDTH = 680;
	var DASHES = [[], [10, 4], [3, 3], [12, 4, 3, 4], [6, 6], [2, 6]];
	/* the metrics of the charts over time: y axis labels (short, the figure
	 * caption says the rest) and whether they are latencies */
	var METRICS = {};
	(data.curves || []).forEach(function (c) {
		METRICS[c.key] = { axis: c.axis, lat: c.lat };
	});
	var GREY = "#444";

	function mark() {
		body.setAttribute("data-charts-expected", String(expected));
		body.setAttribute("data-charts-drawn", String(drawn));
		body.setAttribute(
			"data-charts-state",
			failed ? "error" : drawn >= expected ? "done" : "drawing"
		);
	}

	/* 1234567 -> "1.23M", 20000 -> "20k", 12.5 -> "12.5" (axis ticks) */
	function si(v) {
		if (v == null || !isFinite(v)) return "";
		var a = Math.abs(v);
		if (a >= 1e9) return +(v / 1e9).toFixed(2) + "G";
		if (a >= 1e6) return +(v / 1e6).toFixed(2) + "M";
		if (a >= 1e4) return +(v / 1e3).toFixed(1) + "k";
		return String(+v.toFixed(3));
	}

	/* legend values */
	function num(v) {
		if (v == null || !isFinite(v)) return "\u2014";
		var a = Math.abs(v);
		if (a >= 1000) return Math.round(v).toLocaleString("en-US");
		if (a >= 100) return v.toFixed(0);
		if (a >= 10) return v.toFixed(1);
		return v.toFixed(2);
	}

	/* y: from 0 (throughput and latency are never negative) unless zoomed */
	function fromZero(u, min, max) {
		return uPlot.rangeNum(0, max > 0 ? max : 1, 0.1, true);
	}

	/*
	 * x: [lo, hi] while the whole data is shown, the zoomed span otherwise.
	 * (uPlot calls an x range function for a zoom too, so a fixed range
	 * would undo every zoom.)
	 */
	function xRange(lo, hi) {
		return function (u, min, max) {
			var x = u.data && u.data[0];
			if (!x || !x.length || (min <= x[0] && max >= x[x.length - 1]))
				return [lo, hi == null ? max : hi];
			return [min, max];
		};
	}

	/* drag sideways to zoom in time, up or down to zoom the values */
	var DRAG = { x: true, y: true, uni: 40 };

	function axisValues(u, splits) {
		return splits.map(si);
	}

	/* integer ticks between min and max, thinned to fit */
	function intSplits(u, axisIdx, min, max) {
		var lo = Math.ceil(min), hi = Math.floor(max), out = [];
		var room = Math.max(1, Math.floor(u.bbox.width / (window.devicePixelRatio || 1) / 44));
		var step = Math.max(1, Math.ceil((hi - lo + 1) / room));
		for (var v = lo; v <= hi; v += step) out.push(v);
		return out;
	}

	/* latencies in µs, or in ms when they reach 10 ms */
	function latScale(arrays) {
		var max = 0;
		arrays.forEach(function (a) {
			a.forEach(function (v) {
				if (v != null && v > max) max = v;
			});
		});
		return max >= 10000 ? { div: 1000, unit: "ms" } : { div: 1, unit: "\u00b5s" };
	}

	function scaled(a, div) {
		return div === 1
			? a
			: a.map(function (v) {
					return v == null ? null : v / div;
			  });
	}

	function runOf(i) {
		return data.runs[i];
	}

	function dashOf(i) {
		return DASHES[i % DASHES.length];
	}

	function widthOf(el) {
		return printing ? PRINT_WIDTH : Math.max(240, el.clientWidth || 600);
	}

	function make(el, opts, d, height) {
		var first = true;
		opts.width = widthOf(el);
		opts.height = height;
		opts.hooks = opts.hooks || {};
		opts.hooks.draw = (opts.hooks.draw || []).concat([
			function () {
				if (first) {
					first = false;
					drawn++;
					mark();
				}
			}
		]);
		plots.push({ u: new uPlot(opts, d, el), el: el, height: height });
	}

	/* dashed vertical lines where a run reached steady state */
	function steadyMarks(marks) {
		return {
			hooks: {
				draw: [
					function (u) {
						var ctx = u.ctx, pr = window.devicePixelRatio || 1;
						var top = u.bbox.top, h = u.bbox.height;
						ctx.save();
						ctx.lineWidth = 1.5 * pr;
						ctx.setLineDash([5 * pr, 4 * pr]);
						ctx.font = 11 * pr + "px system-ui, sans-serif";
						marks.forEach(function (m, i) {
							if (m.t < u.scales.x.min || m.t > u.scales.x.max) return;
							var x = Math.round(u.valToPos(m.t, "x", true));
							ctx.strokeStyle = m.color;
							ctx.fillStyle = m.color;
							ctx.beginPath();
							ctx.moveTo(x, top);
							ctx.lineTo(x, top + h);
							ctx.stroke();
							ctx.fillText("steady", x + 3 * pr, top + (12 + 12 * i) * pr);
						});
						ctx.restore();
					}
				]
			}
		};
	}

	/* one metric of the k-th precondition phase of every run, over time */
	function timeChart(el) {
		var g = data.groups[+el.getAttribute("data-group")];
		var key = el.getAttribute("data-metric");
		var spec = METRICS[key];
		var tables = [], series = [{ label: "minutes", value: function (u, v) {
			return v == null ? "\u2014" : v.toFixed(2);
		} }], marks = [];
		g.series.forEach(function (s) {
			var m = s[key], run = runOf(s.run);
			if (!m || !m.t.length) return;
			tables.push([m.t, m.y]);
			series.push({
				label: run.label + " (phase " + s.phase + ")",
				stroke: run.color,
				dash: dashOf(s.run),
				width: 1.5,
				spanGaps: true,
				value: function (u, v) {
					return num(v);
				}
			});
			if (s.steady_t != null) marks.push({ t: s.steady_t, color: run.color });
		});
		var d = tables.length === 1 ? tables[0] : uPlot.join(tables);
		/* minutes, as labs chart them, or hours for phases over 10 hours */
		var xs = d[0], hours = xs.length && xs[xs.length - 1] > 600;
		if (hours) {
			d = [scaled(xs, 60)].concat(d.slice(1));
			marks.forEach(function (m) {
				m.t /= 60;
			});
		}
		series[0].label = hours ? "hours" : "minutes";
		var label = spec.axis;
		if (spec.lat) {
			var ls = latScale(d.slice(1));
			label += " (" + ls.unit + ")";
			d = [d[0]].concat(d.slice(1).map(function (a) {
				return scaled(a, ls.div);
			}));
		}
		make(el, {
			scales: { x: { time: false, range: xRange(0, null) }, y: { range: fromZero } },
			axes: [
				{ label: (hours ? "hours" : "minutes") + " since the phase started",
				  values: axisValues },
				{ label: label, values: axisValues, size: 56 }
			],
			series: series,
			cursor: { drag: DRAG },
			plugins: [steadyMarks(marks)]
		}, d, 260);
	}

	/* the SNIA measurement window: rounds, average, bands, fitted line */
	function windowChart(el) {
		var w = data.windows[+el.getAttribute("data-window")];
		var run = runOf(w.run);
		var xs = [w.start - 0.5], ys = [null];
		for (var r = w.start; r <= w.end; r++) {
			xs.push(r);
			ys.push(w.values[r - w.start]);
		}
		xs.push(w.end + 0.5);
		ys.push(null);
		function at(f) {
			return xs.map(f);
		}
		function flat(k) {
			return at(function () {
				return w.average * k;
			});
		}
		var fit = at(function (x) {
			return w.slope * x + w.intercept;
		});
		var val = function (u, v) {
			return num(v);
		};
		var b10 = "#6b7b84", b20 = "#a9b4ba", nopts = { show: false };
		make(el, {
			scales: { x: { time: false } },
			axes: [
				{ label: "round", splits: intSplits, values: axisValues },
				{ label: w.metric + " (" + w.unit + ")", values: axisValues, size: 56 }
			],
			series: [
				{ label: "round" },
				{ label: "rounds", stroke: run.color, width: 2.5, value: val,
				  points: { show: true, size: 9, fill: run.color } },
				{ label: "average", stroke: GREY, width: 1.5, value: val, points: nopts },
				{ label: "+10 %", stroke: b10, width: 1, dash: [5, 3], value: val,
				  points: nopts },
				{ label: "\u221210 %", stroke: b10, width: 1, dash: [5, 3], value: val,
				  points: nopts },
				{ label: "+20 %", stroke: b20, width: 1, dash: [2, 3], value: val,
				  points: nopts },
				{ label: "\u221220 %", stroke: b20, width: 1, dash: [2, 3], value: val,
				  points: nopts },
				{ label: "fitted line", stroke: "#7a3db8", width: 2, dash: [9, 4],
				  value: val, points: nopts }
			],
			bands: [
				{ series: [5, 6], fill: "rgba(120, 135, 145, 0.08)" },
				{ series: [3, 4], fill: "rgba(120, 135, 145, 0.16)" }
			],
			cursor: { drag: DRAG }
		}, [xs, ys, flat(1), flat(1.1), flat(0.9), flat(1.2), flat(0.8), fit], 280);
	}

	/* one line per run and thread count: the run's colour when several runs
	 * share the chart, else a colour per thread count; a dash per thread count */
	var TC_COLORS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9",
		"#555555", "#8c564b"];
	function sweepStyle(sw, s, i) {
		var runs = {}, nruns = 0, run = runOf(s.run);
		sw.series.forEach(function (x) {
			if (!runs[x.run]) nruns++;
			runs[x.run] = true;
		});
		var tcs = [];
		sw.series.forEach(function (x) {
			if (x.run === s.run) tcs.push(x.threads);
		});
		var k = tcs.indexOf(s.threads);
		return {
			label: (nruns > 1 ? run.label + ", " : "") + s.threads +
				(s.threads === 1 ? " thread" : " threads"),
			color: nruns > 1 ? run.color : TC_COLORS[k % TC_COLORS.length],
			dash: nruns > 1 ? DASHES[k % DASHES.length] : []
		};
	}

	/* powers of two (queue depths) between min and max */
	function pow2Splits(u, axisIdx, min, max) {
		var out = [];
		for (var v = 1; v <= max * 1.001; v *= 2) if (v >= min * 0.999) out.push(v);
		return out.length ? out : [min];
	}

	/* throughput (IOPS or MB/s) against queue depth, one line per thread count */
	function sweepQdChart(el) {
		var sw = data.sweeps[+el.getAttribute("data-sweep")];
		var y = sw.y, tables = [], series = [{ label: "queue depth" }];
		sw.series.forEach(function (s, i) {
			var st = sweepStyle(sw, s, i);
			tables.push([s.iodepth, s[y]]);
			series.push({ label: st.label, stroke: st.color, dash: st.dash, width: 2,
				      spanGaps: true, value: function (u, v) {
					return num(v);
				}, points: { show: true, size: 8, fill: st.color } });
		});
		var d = tables.length === 1 ? tables[0] : uPlot.join(tables);
		make(el, {
			scales: { x: { time: false, distr: 3, log: 2 }, y: { range: fromZero } },
			axes: [
				{ label: "queue depth (per thread)", splits: pow2Splits, values: axisValues },
				{ label: y === "bw" ? "MB/s" : "IOPS", values: axisValues, size: 56 }
			],
			series: series,
			cursor: { drag: DRAG }
		}, d, 280);
	}

	/* a dot on every measured point of a mode-2 chart (one per queue depth) */
	function facetPoints(colors) {
		return {
			hooks: {
				draw: [
					function (u) {
						var ctx = u.ctx, pr = window.devicePixelRatio || 1;
						ctx.save();
						u.series.forEach(function (s, i) {
							if (!i || !s.show) return;
							var xs = u.data[i][0], ys = u.data[i][1];
							ctx.fillStyle = colors[i];
							for (var j = 0; j < xs.length; j++) {
								if (xs[j] == null || ys[j] == null) continue;
								ctx.beginPath();
								ctx.arc(u.valToPos(xs[j], "x", true),
									u.valToPos(ys[j], "y", true), 3.5 * pr, 0,
									2 * Math.PI);
								ctx.fill();
							}
						});
						ctx.restore();
					}
				]
			}
		};
	}

	/*
	 * demand intensity: latency against throughput, one line per thread count
	 * in the order of queue depth (a line may turn back where more queue
	 * depth brought less throughput: uPlot's mode 2, each series its own x)
	 */
	function sweepDiChart(el) {
		var sw = data.sweeps[+el.getAttribute("data-sweep")];
		var key = el.getAttribute("data-lat"), y = sw.y;
		var ls = latScale(sw.series.map(function (s) {
			return s[key];
		}));
		var d = [null], series = [{}], colors = [null];
		sw.series.forEach(function (s, i) {
			var st = sweepStyle(sw, s, i);
			colors.push(st.color);
			d.push([s[y], scaled(s[key], ls.div)]);
			series.push({ label: st.label, stroke: st.color, dash: st.dash, width: 2,
				      facets: [{ scale: "x", auto: true }, { scale: "y", auto: true }],
				      points: { show: true, size: 8, fill: st.color } });
		});
		make(el, {
			mode: 2,
			scales: { x: { time: false, range: fromZero }, y: { range: fromZero } },
			axes: [
				{ label: y === "bw" ? "MB/s" : "IOPS", values: axisValues },
				{ label: (key === "p99" ? "p99" : "mean") + " latency (" + ls.unit + ")",
				  values: axisValues, size: 56 }
			],
			legend: { live: false },
			series: series,
			cursor: { drag: { x: false, y: false } },
			plugins: [facetPoints(colors)]
		}, d, 280);
	}

	function build(el) {
		switch (el.getAttribute("data-chart")) {
		case "time":
			return timeChart(el);
		case "window":
			return windowChart(el);
		case "sweep-qd":
			return sweepQdChart(el);
		case "sweep-di":
			return sweepDiChart(el);
		default:
			throw new Error("unknown chart kind " + el.getAttribute("data-chart"));
		}
	}

	function resize() {
		plots.forEach(function (p) {
			p.u.setSize({ width: widthOf(p.el), height: p.height });
		});
	}

	mark();
	Array.prototype.forEach.call(document.querySelectorAll("[data-chart]"), function (el) {
		try {
			build(el);
		} catch (e) {
			failed++;
			el.className += " chart-error";
			el.textContent = "This chart could not be drawn: " + e.message;
			mark();
			console.error("plateau report: chart " + el.getAttribute("data-chart") + ": " + e);
		}
	});
	mark();

	var timer = null;
	window.addEventListener("resize", function () {
		if (printing) return;
		clearTimeout(timer);
		timer = setTimeout(resize, 150);
	});
	function toPrint(on) {
		if (printing === on) return;
		printing = on;
		resize();
	}
	window.addEventListener("beforeprint", function () {
		toPrint(true);
	});
	window.addEventListener("afterprint", function () {
		toPrint(false);
	});
	if (window.matchMedia) {
		var mq = window.matchMedia("print");
		var onChange = function (e) {
			toPrint(e.matches);
		};
		if (mq.addEventListener) mq.addEventListener("change", onChange);
		else if (mq.addListener) mq.addListener(onChange);
	}
})();
