#!/usr/bin/perl
# docs.extract.pl OUTDIR FILE...: every example block of README.md (fenced
# ``` blocks) and of the man pages (.nf ... .fi), for docs.t.
#
# Each block goes to OUTDIR/N (its text, roff escapes undone), and a line
#   N <TAB> FILE:LINE <TAB> LANG <TAB> SECTION
# to OUTDIR/index: LANG is the fence's language (ini, sh, "" for a plain
# fence) or "roff" for a man page; SECTION the man page's .SH/.SS title
# (its first word for a command's .SS: "status", "samples") or README's
# last heading.
use strict;
use warnings;

my ($out, @files) = @ARGV;
open(my $idx, '>', "$out/index") or die "$out/index: $!";
my $n = 0;

sub unroff {
	my ($s) = @_;
	$s =~ s/\\f[BIRP]//g;
	$s =~ s/\\\(aq/'/g;
	$s =~ s/\\\(dq/"/g;
	$s =~ s/\\\(bu/*/g;
	$s =~ s/\\\(em/--/g;
	$s =~ s/\\-/-/g;
	$s =~ s/\\&//g;
	$s =~ s/\\e/\\/g;
	$s =~ s/\\ / /g;
	return $s;
}

sub emit {
	my ($file, $line, $lang, $section, $text) = @_;
	$n++;
	open(my $f, '>', "$out/$n") or die "$out/$n: $!";
	print $f $text;
	close($f);
	$section =~ s/\t/ /g;
	print $idx "$n\t$file:$line\t$lang\t$section\n";
}

for my $file (@files) {
	open(my $f, '<', $file) or die "$file: $!";
	my @l = <$f>;
	close($f);
	my $section = '';
	if ($file =~ /\.md$/) {
		for (my $i = 0; $i < @l; $i++) {
			$section = $1 if $l[$i] =~ /^#+\s+(.*?)\s*$/;
			next unless $l[$i] =~ /^```(\S*)\s*$/;
			my ($lang, $start, $text) = ($1, $i + 1, '');
			for ($i++; $i < @l && $l[$i] !~ /^```\s*$/; $i++) {
				$text .= $l[$i];
			}
			emit($file, $start + 1, $lang, $section, $text);
		}
	} else {
		for (my $i = 0; $i < @l; $i++) {
			if ($l[$i] =~ /^\.S[HS]\s+(.*)$/) {
				$section = unroff($1);
				$section =~ s/^"//;
				$section =~ s/"$//;
			}
			next unless $l[$i] =~ /^\.nf\b/;
			my ($start, $text) = ($i + 1, '');
			for ($i++; $i < @l && $l[$i] !~ /^\.fi\b/; $i++) {
				next if $l[$i] =~ /^\.(RS|RE|PP|ft|sp)\b/;
				$text .= unroff($l[$i]);
			}
			emit($file, $start, 'roff', $section, $text);
		}
	}
}
close($idx);
