#!/usr/bin/perl
# Runs a guest (COMMAND...: QEMU with "-qmp unix:SOCKET,server=on,wait=off") and copies its
# console to stdout, each line stamped with the host's seconds since the start. It keeps the
# time budgets, which count in the guest's seconds: under -icount QEMU's clock runs on the
# instructions executed, so what a test costs there does not depend on the host's load. Every
# POLL host seconds (and when a test starts or the job ends) it asks QEMU's monitor for its
# clock ("info jit": host minus guest clock, which --icount requires); without -icount the
# guest's clock is the host's.
#
# A test binary the guest announced ("# guest test: NAME (uptime S)") may run TEST guest
# seconds (the guest stops it then; this is the backstop, at TEST + max(10, TEST / 10)), the
# job JOB guest seconds. Backstops on the host's clock, which only a hang reaches: the guest's
# clock standing still for STALL host seconds (or the monitor not answering), and the whole job
# taking HOST host seconds. The first limit reached gets a line
#   @@PMUSER-STOP KIND LIMIT TEST TEST_GUEST TEST_HOST JOB_GUEST
# (KIND: test, job, stall, host; TEST "-" outside a test; times in seconds, "?" for a guest
# clock never read) and the guest is stopped. At the end a line "@@PMUSER-CLOCK GUEST_S" gives
# the guest's clock at the job's end (or the last known). Exits with COMMAND's status.
#
# usage: guest-console.pl --qmp SOCKET [--icount] [--test S] [--job S] [--stall S] [--host S]
#                         [--poll S] COMMAND...      (a limit of 0 is no limit)
use strict;
use warnings;
use Getopt::Long qw(:config require_order);
use IO::Select;
use IO::Socket::UNIX;
use JSON::PP;
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);

# The host's clock: monotonic, as QEMU's (a suspended laptop's sleep is no run time).
sub now { return clock_gettime(CLOCK_MONOTONIC); }

my %lim = (test => 0, job => 0, stall => 0, host => 0);
my ($qmp_path, $poll, $icount) = (undef, 5, 0);
GetOptions('qmp=s' => \$qmp_path, 'poll=f' => \$poll, 'icount' => \$icount,
	map { ("$_=f" => \$lim{$_}) } keys %lim)
	&& @ARGV or die "usage: guest-console.pl --qmp SOCKET [--icount] [--test S] [--job S]"
	. " [--stall S] [--host S] [--poll S] COMMAND...\n";
my $t0 = now();
$| = 1;
my $pid = open(my $in, '-|') // die "guest-console: fork: $!\n";
if (!$pid) {
	open(STDERR, '>&', \*STDOUT) or die;
	exec(@ARGV) or die "guest-console: $ARGV[0]: $!\n";
}
my $sel = IO::Select->new($in);
my $buf = '';
my ($test, $test_host, $test_guest);	# the running test, its start on both clocks
my $guest;				# the guest's clock at the last answer (seconds)
my $advanced = $t0;			# host time the guest's clock was last seen moving
my ($stopped, $next_poll) = (0, $t0 + 1);
my ($qmp, $qmp_buf) = (undef, '');
my $offset = 0;				# QEMU's clock minus the guest's uptime
$SIG{PIPE} = 'IGNORE';

sub stamp { printf "%.1f %s\n", now() - $t0, $_[0]; }

# The guest's clock in seconds since QEMU started, or undef if the monitor did not answer.
sub guest_clock {
	if (!$qmp) {
		$qmp = IO::Socket::UNIX->new(Peer => $qmp_path) or return undef;
		$qmp_buf = '';
		print $qmp encode_json({ execute => 'qmp_capabilities' }), "\n";
	}
	print $qmp encode_json({ execute => 'human-monitor-command',
		arguments => { 'command-line' => 'info jit' } }), "\n";
	my $qsel = IO::Select->new($qmp);
	my $deadline = now() + 10;
	while (now() < $deadline) {
		while ($qmp_buf =~ s/^([^\n]*)\n//) {
			my $reply = eval { decode_json($1) } // next;
			my $text = $reply->{return};
			next if !defined $text || ref $text;	# the greeting, events, other replies
			# "Host - Guest clock  N ms" (host: QEMU's run time), printed only with -icount;
			# with --icount a reply without it counts as no answer.
			return now() - $t0 - $1 / 1000 if $text =~ /Host - Guest clock\s+(-?\d+) ms/;
			return $icount ? undef : now() - $t0;
		}
		last if !$qsel->can_read($deadline - now());
		my $n = sysread($qmp, $qmp_buf, 65536, length $qmp_buf);
		last if !$n;
	}
	close $qmp;
	$qmp = undef;
	return undef;
}

sub sample {
	my $g = guest_clock();
	return if !defined $g;
	$advanced = now() if !defined $guest || $g > $guest + 0.0005;
	$guest = $g;
}

# The guest's uptime as of the last answer.
sub uptime { return defined $guest ? $guest - $offset : 0; }

sub stop {
	my ($kind, $limit) = @_;
	my $known = defined $guest && (!defined $test || defined $test_guest);
	stamp(sprintf "\@\@PMUSER-STOP %s %d %s %s %.1f %s", $kind, $limit, $test // '-',
		!$known ? '?' : sprintf('%.1f', defined $test ? $guest - $test_guest : 0),
		defined $test ? now() - $test_host : 0,
		defined $guest ? sprintf('%.1f', uptime()) : '?');
	kill 'TERM', $pid;
	$stopped = now();
}

while (1) {
	if ($sel->can_read(1)) {
		my $n = sysread($in, $buf, 65536, length $buf);
		last if !$n;
		# A line ends at a newline, or where a carriage return starts writing it over (a
		# tool's progress on the guest's terminal): each state of it is a line here, without
		# the terminal's erase-line sequence.
		while ($buf =~ s/^([^\r\n]*)(\r*\n|\r+(?=[^\r\n]))//) {
			my ($line, $end) = ($1, $2);
			$line =~ s/\e\[K//g;
			next if $line eq '' && $end !~ /\n/;
			stamp($line);
			if ($line =~ /^# guest test: (\S+) \(uptime ([0-9.]+)\)/) {
				my ($name, $up) = ($1, $2);
				sample();
				($test, $test_host, $test_guest) = ($name, now(), $guest);
				$offset = $guest - $up if defined $guest;
			} elsif ($line =~ /^# guest test: \S+ took /) {
				$test = undef;
			} elsif ($line =~ /^\@\@PMUSER-EXIT/) {
				$test = undef;
				sample();
			}
		}
	}
	next if $stopped;
	if (now() >= $next_poll) {
		sample();
		$next_poll = now() + $poll;
	}
	if (defined $test && !defined $test_guest) {
		$test_guest = $guest;	# the monitor answered only now
	}
	my $g = $guest // 0;
	if ($lim{test} && defined $test && defined $test_guest &&
	    $g - $test_guest > $lim{test} + ($lim{test} / 10 > 10 ? $lim{test} / 10 : 10)) {
		stop('test', $lim{test});
	} elsif ($lim{job} && uptime() > $lim{job}) {
		stop('job', $lim{job});
	} elsif ($lim{stall} && now() - $advanced > $lim{stall}) {
		stop('stall', $lim{stall});
	} elsif ($lim{host} && now() - $t0 > $lim{host}) {
		stop('host', $lim{host});
	}
} continue {
	kill 'KILL', $pid if $stopped && now() - $stopped > 10;
}
stamp($buf) if length $buf;
stamp(sprintf "\@\@PMUSER-CLOCK %.1f", uptime()) if defined $guest;
close $in;
exit($? & 127 ? 128 + ($? & 127) : $? >> 8);
