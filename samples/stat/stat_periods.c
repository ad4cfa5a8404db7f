// SPDX-License-Identifier: MIT
/*
 * pmu-stat's per-period data (the seed's "rpistat.data" extension): one CSV row per period,
 * CPU and event, and an SVG plot with one panel per event of its rate over time, so program
 * phases longer than a period show as steps.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stat.h"
#include "tool_text.h"

static const char *event_name(const struct stat_setup *s, const struct stat_result *r, int ev)
{
	return ev < 0 ? r->cycles.name : s->ev[ev].name;
}

int stat_periods_write(FILE *f, const struct stat_setup *s, const struct stat_result *r)
{
	size_t i;

	fprintf(f, "# pmu-stat periods v1 backend=%s period_ms=%u\n",
		stat_backend_label(r->backend), r->interval_ms);
	fprintf(f, "# time_s: period end from the command's start; running_s: time the event counted in it\n");
	fprintf(f, "time_s,period_s,cpu,set,event,delta,running_s\n");
	for (i = 0; i < r->periods.n; i++) {
		const struct stat_period *p = &r->periods.rows[i];
		char cpu[16], set[16];

		if (p->cpu < 0)
			snprintf(cpu, sizeof(cpu), "all");
		else
			snprintf(cpu, sizeof(cpu), "%d", p->cpu);
		if (p->set < 0)
			snprintf(set, sizeof(set), "all");
		else
			snprintf(set, sizeof(set), "%d", p->set);
		fprintf(f, "%.6f,%.6f,%s,%s,%s,%llu,%.6f\n", (double)p->t_ns / 1e9,
			(double)p->len_ns / 1e9, cpu, set, event_name(s, r, p->ev),
			(unsigned long long)p->delta, (double)p->running_ns / 1e9);
	}
	return ferror(f) ? -EIO : 0;
}

struct point {
	double t0, t1;		/* seconds */
	double rate;		/* events per second while counted */
};

/* The series of one event: CPUs' rates summed per period. */
static size_t series(const struct stat_result *r, int ev, struct point *pts)
{
	size_t i, n = 0;

	for (i = 0; i < r->periods.n; i++) {
		const struct stat_period *p = &r->periods.rows[i];
		double rate;

		if (p->ev != ev || !p->running_ns)
			continue;
		rate = (double)p->delta * 1e9 / (double)p->running_ns;
		if (n && pts[n - 1].t1 == (double)p->t_ns / 1e9) {
			pts[n - 1].rate += rate;
			continue;
		}
		pts[n].t1 = (double)p->t_ns / 1e9;
		pts[n].t0 = pts[n].t1 - (double)p->len_ns / 1e9;
		pts[n].rate = rate;
		n++;
	}
	return n;
}

static const char *si(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "", "k", "M", "G", "T" };
	unsigned int u = 0;

	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%.3g%s", v, unit[u]);
	return buf;
}

#define PLOT_W		900
#define PLOT_LEFT	190
#define PLOT_RIGHT	20
#define PANEL_H		64
#define PANEL_GAP	14
#define PLOT_TOP	40

int stat_periods_plot(FILE *f, const struct stat_setup *s, const struct stat_result *r,
		      const char *title)
{
	struct point *pts = calloc(r->periods.n + 1, sizeof(*pts));
	int evs[STAT_MAX_EVENTS + 1], nev = 0, e;
	double tmax = (double)r->elapsed_ns / 1e9, xs;
	size_t n, i, k;
	int height, tick;
	char buf[32];

	if (!pts)
		return -ENOMEM;
	if (r->have_cycles)
		evs[nev++] = -1;
	for (i = 0; i < s->nr_events; i++)
		if (s->ev[i].supported)
			evs[nev++] = (int)i;
	for (i = 0; i < r->periods.n; i++)
		if ((double)r->periods.rows[i].t_ns / 1e9 > tmax)
			tmax = (double)r->periods.rows[i].t_ns / 1e9;
	if (tmax <= 0)
		tmax = 1e-3;
	xs = (PLOT_W - PLOT_LEFT - PLOT_RIGHT) / tmax;
	height = PLOT_TOP + nev * (PANEL_H + PANEL_GAP) + 40;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		PLOT_W, height);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"10\" y=\"20\" font-size=\"14\">");
	if (title)
		tool_xml_text(f, title);
	fprintf(f, " (events per second while counted, %s backend, %u ms periods)</text>\n",
		stat_backend_label(r->backend), r->interval_ms);
	if (!nev)
		fprintf(f, "<text x=\"10\" y=\"%d\">no counters: nothing to plot</text>\n",
			PLOT_TOP + 10);
	for (e = 0; e < nev; e++) {
		int y0 = PLOT_TOP + e * (PANEL_H + PANEL_GAP);
		double max = 0;

		n = series(r, evs[e], pts);
		for (k = 0; k < n; k++)
			if (pts[k].rate > max)
				max = pts[k].rate;
		fprintf(f, "<text x=\"10\" y=\"%d\">", y0 + PANEL_H / 2);
		tool_xml_text(f, event_name(s, r, evs[e]));
		fputs("</text>\n", f);
		fprintf(f, "<text x=\"10\" y=\"%d\" fill=\"#666\">max %s/s</text>\n",
			y0 + PANEL_H / 2 + 15, si(buf, sizeof(buf), max));
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f6f6f6\" stroke=\"#ccc\"/>\n",
			PLOT_LEFT, y0, PLOT_W - PLOT_LEFT - PLOT_RIGHT, PANEL_H);
		if (!n || max <= 0)
			continue;
		/* Steps: one horizontal segment per period, gaps where the set was off. */
		fprintf(f, "<path fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"2\" d=\"");
		for (k = 0; k < n; k++) {
			double y = y0 + PANEL_H - pts[k].rate / max * (PANEL_H - 4);

			fprintf(f, "M%.1f %.1fH%.1f", PLOT_LEFT + pts[k].t0 * xs, y,
				PLOT_LEFT + pts[k].t1 * xs);
		}
		fprintf(f, "\"/>\n");
	}
	for (tick = 0; tick <= 5; tick++) {
		double t = tmax * tick / 5;
		int yb = PLOT_TOP + nev * (PANEL_H + PANEL_GAP);

		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.3g s</text>\n",
			PLOT_LEFT + t * xs, yb + 12, t);
	}
	fprintf(f, "</svg>\n");
	free(pts);
	return ferror(f) ? -EIO : 0;
}
