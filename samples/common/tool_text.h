/* SPDX-License-Identifier: MIT */
/*
 * Text from outside a tool (command names, paths, event names) written into its JSON and SVG
 * outputs: whatever the bytes, the output stays well formed. Bytes that are not UTF-8 become
 * U+FFFD, as a JSON string and an XML document must be UTF-8.
 */
#ifndef PMUSER_TOOL_TEXT_H
#define PMUSER_TOOL_TEXT_H

#include <stddef.h>
#include <stdio.h>

/*
 * The length of the UTF-8 sequence s starts with (shortest form, no surrogates, at most
 * U+10FFFF), or 0 when it does not start one.
 */
size_t tool_utf8_len(const char *s);
/* s as a JSON string, quotes included: control characters as \uXXXX. */
void tool_json_string(FILE *f, const char *s);
/*
 * s as XML character data: markup characters as entities, characters XML 1.0 does not
 * allow (controls other than tab, newline and return, U+FFFE, U+FFFF) as U+FFFD.
 */
void tool_xml_text(FILE *f, const char *s);

#endif
