// SPDX-License-Identifier: MIT
/* JSON strings and XML text from any bytes; see tool_text.h. */
#include <string.h>

#include "tool_text.h"

#define REPLACEMENT "\xef\xbf\xbd"	/* U+FFFD in UTF-8 */

size_t tool_utf8_len(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned int cp, n, i;

	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2, cp = u[0] & 0x1f;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3, cp = u[0] & 0x0f;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4, cp = u[0] & 0x07;
	else
		return 0;
	/* A NUL ends the string before any continuation byte is missed: it is not one. */
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void tool_json_string(FILE *f, const char *s)
{
	size_t n;

	fputc('"', f);
	for (; *s; s += n ? n : 1) {
		unsigned char ch = (unsigned char)*s;

		n = tool_utf8_len(s);
		if (!n)
			fputs(REPLACEMENT, f);
		else if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fwrite(s, 1, n, f);
	}
	fputc('"', f);
}

void tool_xml_text(FILE *f, const char *s)
{
	size_t n;

	for (; *s; s += n ? n : 1) {
		unsigned char ch = (unsigned char)*s;

		n = tool_utf8_len(s);
		/* XML 1.0 has no controls but tab, newline and return, and no U+FFFE or U+FFFF. */
		if (!n || (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') ||
		    (n == 3 && !memcmp(s, "\xef\xbf", 2) && ((unsigned char)s[2] & 0xfe) == 0xbe))
			fputs(REPLACEMENT, f);
		else if (ch == '<')
			fputs("&lt;", f);
		else if (ch == '>')
			fputs("&gt;", f);
		else if (ch == '&')
			fputs("&amp;", f);
		else
			fwrite(s, 1, n, f);
	}
}
