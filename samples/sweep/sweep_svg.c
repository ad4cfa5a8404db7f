// SPDX-License-Identifier: MIT
/* pmu-sweep's SVG plot; see sweep_svg.h. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "size_suffix.h"
#include "sweep_svg.h"
#include "tool_text.h"

#define W 900
#define H 520
#define ML 80	/* margins: left, right, top, bottom */
#define MR 30
#define MT 40
#define MB 60

struct axes { double x0, x1, y0, y1; };

static double px(const struct axes *a, uint64_t size)
{
	return ML + (log2((double)size) - a->x0) / (a->x1 - a->x0) * (W - ML - MR);
}

static double py(const struct axes *a, double lat)
{
	return H - MB - (log2(lat) - a->y0) / (a->y1 - a->y0) * (H - MT - MB);
}

int sweep_svg_write(FILE *f, const struct tiers_point *pts, size_t n, const char *unit,
		  const struct tiers_result *res, const char *title)
{
	struct axes a;
	double lo = INFINITY, hi = 0;
	char buf[32];

	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, pts[i].latency);
		hi = fmax(hi, pts[i].latency);
	}
	a.x0 = floor(log2((double)pts[0].size));
	a.x1 = ceil(log2((double)pts[n - 1].size));
	if (a.x1 <= a.x0)
		a.x1 = a.x0 + 1;
	a.y0 = floor(log2(lo));
	a.y1 = ceil(log2(hi));
	if (a.y1 <= a.y0)	/* flat: one octave around the line */
		a.y1 = a.y0 + 1;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n<text x=\"%d\" y=\"24\" "
		"font-size=\"15\">", W, H, ML);
	tool_xml_text(f, title);
	fputs("</text>\n", f);
	/* grid and ticks: every power of two in size and latency */
	for (double x = a.x0; x <= a.x1; x++) {
		double X = px(&a, (uint64_t)1 << (int)x);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n",
			X, MT, X, H - MB);
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", X,
			H - MB + 16, size_format(buf, sizeof(buf), (uint64_t)1 << (int)x));
	}
	for (double y = a.y0; y <= a.y1; y++) {
		double Y = py(&a, exp2(y));

		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
			ML, Y, W - MR, Y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", ML - 6, Y + 4,
			exp2(y));
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">working-set size (log2)</text>\n",
		(W + ML - MR) / 2, H - 18);
	fprintf(f, "<text transform=\"translate(20,%d) rotate(-90)\" text-anchor=\"middle\">"
		"latency per load, %s (log2)</text>\n", (H + MT - MB) / 2, unit);
	for (size_t t = 0; res && t < res->n; t++) {
		const struct tiers_level *l = &res->level[t];
		double y = py(&a, l->latency), x1 = px(&a, l->first_size), x2 = px(&a, l->last_size);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c33\" "
			"stroke-width=\"2\" stroke-dasharray=\"6,4\"/>\n", x1, y, x2, y);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c33\">%s %.3g %s", x1, y - 6, l->label,
			l->latency, unit);
		if (l->step > 0)
			fprintf(f, ", %s", size_format(buf, sizeof(buf), l->capacity));
		fputs("</text>\n", f);
		if (l->step > 0)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c33\" "
				"stroke-dasharray=\"2,3\"/>\n", x2, MT, x2, H - MB);
	}
	if (res && res->tlb.found) {
		double x = px(&a, res->tlb.size_after);

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#36c\" "
			"stroke-dasharray=\"2,3\"/>\n<text x=\"%.1f\" y=\"%d\" fill=\"#36c\">TLB</text>\n",
			x, MT, x, H - MB, x + 3, MT + 12);
	}
	fputs("<polyline fill=\"none\" stroke=\"#124\" stroke-width=\"1.5\" points=\"", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%.1f,%.1f ", px(&a, pts[i].size), py(&a, pts[i].latency));
	fputs("\"/>\n", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#124\"/>\n",
			px(&a, pts[i].size), py(&a, pts[i].latency));
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
