#!/bin/bash
# Writes the man page of one tool, section 1, from its --help: the usage is made from the
# same option table the tool parses (samples/common/tool_opts.h), so page and tool agree.
#
# usage: man/tool-page.sh TOOL VERSION BINARY >TOOL.1
set -euo pipefail
tool=$1 version=$2 bin=$3
upper=$(printf '%s' "$tool" | tr '[:lower:]' '[:upper:]')
"$bin" --help | awk -v tool="$tool" -v upper="$upper" -v version="$version" '
	# roff: backslashes as \e, a leading dot or quote guarded, minus signs as \-.
	# A section of n lines as the help has them, if there are any.
	function verbatim(title, lines, n,    i) {
		if (!n)
			return
		print ".SH " title
		print ".nf"
		for (i = 1; i <= n; i++)
			print esc(lines[i])
		print ".fi"
	}
	function esc(s) {
		gsub(/\\/, "\\e", s)
		gsub(/-/, "\\-", s)
		if (s ~ /^[.\x27]/)
			s = "\\&" s
		return s
	}
	function flush() {
		if (opt != "")
			options = options ".TP\n.B " esc(opt) "\n" esc(text) "\n"
		opt = ""
		text = ""
	}
	function is_option(s) { return s ~ /^  (-[A-Za-z0-9], )?--[a-z]|^      --[a-z]/ }
	NR == 1 {
		sub(/^usage: [^ ]+ ?/, "")
		syn[++nsyn] = $0
		next
	}
	state == 0 && index($0, "       " tool " ") == 1 {
		syn[++nsyn] = substr($0, length(tool) + 9)
		next
	}
	state < 2 && is_option($0) { state = 2 }
	state < 2 {
		state = 1
		about = about (about == "" ? "" : " ") $0
		next
	}
	state == 2 && is_option($0) {
		flush()
		line = $0
		sub(/^ +/, "", line)
		n = match(line, /  +/)
		opt = n ? substr(line, 1, RSTART - 1) : line
		text = n ? substr(line, RSTART + RLENGTH) : ""
		if (opt ~ /--help$/)
			state = 3
		next
	}
	state == 2 && /^         +[^ ]/ {
		line = $0
		sub(/^ +/, "", line)
		text = text " " line
		next
	}
	# The "Examples:" line of the usage and the lines after it are the EXAMPLES section.
	state >= 2 && $0 == "Examples:" {
		flush()
		state = 5
		next
	}
	state == 5 {
		line = $0
		sub(/^  /, "", line)
		examples[++nexamples] = line
		next
	}
	state >= 2 {
		flush()
		state = 4
		notes[++nnotes] = $0
	}
	END {
		flush()
		printf ".TH %s 1 \"\" \"pmuser %s\" \"pmuser tools\"\n", upper, version
		print ".SH NAME"
		name = about
		if (match(name, /[.:;] /))
			name = substr(name, 1, RSTART - 1)
		sub(/\.$/, "", name)
		print esc(tool) " \\- " esc(name)
		print ".SH SYNOPSIS"
		print ".nf"
		for (i = 1; i <= nsyn; i++)
			print "\\fB" esc(tool) "\\fR " esc(syn[i])
		print ".fi"
		if (about != "") {
			print ".SH DESCRIPTION"
			print esc(about)
		}
		print ".SH OPTIONS"
		printf "%s", options
		verbatim("NOTES", notes, nnotes)
		verbatim("EXAMPLES", examples, nexamples)
		print ".SH SEE ALSO"
		print ".BR pmuser (7)"
	}'
