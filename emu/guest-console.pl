#!/usr/bin/perl
# Runs a guest (COMMAND...) and copies its console to stdout, each line stamped with the host's
# seconds since the start: the guest's clock runs on QEMU's instruction count, the budgets on
# the host's. A test binary the guest announced ("# guest test: NAME (uptime S)") that runs
# longer than TEST_LIMIT host seconds gets a "@@PMUSER-TEST-TIMEOUT NAME S" line and the guest
# is stopped. Exits with COMMAND's status.
#
# usage: guest-console.pl TEST_LIMIT COMMAND...
use strict;
use warnings;
use IO::Select;
use POSIX ":sys_wait_h";
use Time::HiRes qw(time);

my $limit = shift @ARGV;
my $t0 = time;
$| = 1;
my $pid = open(my $in, '-|') // die "guest-console: fork: $!\n";
if (!$pid) {
	open(STDERR, '>&', \*STDOUT) or die;
	exec(@ARGV) or die "guest-console: $ARGV[0]: $!\n";
}
my $sel = IO::Select->new($in);
my ($buf, $test, $since, $stopped) = ('', undef, 0, 0);

sub stamp { printf "%.1f %s\n", time - $t0, $_[0]; }

while (1) {
	if ($sel->can_read(1)) {
		my $n = sysread($in, $buf, 65536, length $buf);
		last if !$n;
		while ($buf =~ s/^([^\n]*)\n//) {
			my $line = $1;
			$line =~ s/\r//g;
			stamp($line);
			if ($line =~ /^# guest test: (\S+) \(uptime /) {
				($test, $since) = ($1, time);
			} elsif ($line =~ /^# guest test: \S+ took / || $line =~ /^\@\@PMUSER-EXIT/) {
				$test = undef;
			}
		}
	}
	if (defined $test && !$stopped && time - $since > $limit) {
		stamp(sprintf "\@\@PMUSER-TEST-TIMEOUT %s %d", $test, $limit);
		kill 'TERM', $pid;
		$stopped = time;
	}
	kill 'KILL', $pid if $stopped && time - $stopped > 10;
}
stamp($buf) if length $buf;
close $in;
exit($? & 127 ? 128 + ($? & 127) : $? >> 8);
