#!/usr/bin/env bash
# Counts the top-level public types of each module under Sources/: every struct, class, enum,
# protocol, actor and typealias declared `public` (or `open`) at file scope, each name once (a type
# declared once per platform, like `PlatformImage`, counts once). Types nested in another type or
# in an extension are not counted: they are found through the type that holds them.
#
#   Scripts/public-types.sh            # "Imago 40", one line per module
#   Scripts/public-types.sh --list     # the names too
#   Scripts/public-types.sh --check    # fails when Imago has more than its limit (45)
#
# Attributes (`@frozen`, `@MainActor`, `@available(...)`) and modifiers (`final`, `indirect`,
# `nonisolated`) may come before or after `public`; declarations inside `#if` blocks count; text in
# comments and string literals (multi-line ones too) is skipped; `package` and internal types are
# not public API.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=45
mode=${1:-}
case "$mode" in
  "" | --list | --check) ;;
  *) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

# Prints "Module Name" for each top-level public type of the Swift files given.
top_level_public_types() {
  perl -e '
    my $module = shift @ARGV;
    for my $file (@ARGV) {
      open(my $fh, "<", $file) or die "$file: $!";
      local $/; my $text = <$fh>; close $fh;
      # Blank out comments and string literals (with their interpolations), keeping line breaks,
      # so their braces and words do not count.
      my @c = split //, $text; my $out = ""; my $i = 0; my $n = @c;
      my @stack = ("code");   # code, or a string: its closing quotes; interpolations push code
      my @parens = (0);       # open parentheses in each interpolation
      my $blank = sub { my $s = shift; $s =~ s/[^\n]/ /g; $out .= $s };
      while ($i < $n) {
        my $top = $stack[-1];
        if ($top eq "code") {
          my $two = $i + 1 < $n ? $c[$i] . $c[$i + 1] : $c[$i];
          if ($two eq "//") { my $j = $i; $j++ while $j < $n && $c[$j] ne "\n"; $blank->(join "", @c[$i .. $j - 1]); $i = $j; next }
          if ($two eq "/*") {
            my ($j, $level) = ($i + 2, 1);
            while ($j < $n && $level > 0) {
              if ($c[$j] eq "/" && $j + 1 < $n && $c[$j + 1] eq "*") { $level++; $j += 2 }
              elsif ($c[$j] eq "*" && $j + 1 < $n && $c[$j + 1] eq "/") { $level--; $j += 2 }
              else { $j++ }
            }
            $blank->(join "", @c[$i .. $j - 1]); $i = $j; next;
          }
          if ($c[$i] eq "#" || $c[$i] eq "\"") {
            my $j = $i; my $hashes = ""; while ($j < $n && $c[$j] eq "#") { $hashes .= "#"; $j++ }
            if ($j < $n && $c[$j] eq "\"") {
              my $quote = ($j + 2 < $n && $c[$j + 1] eq "\"" && $c[$j + 2] eq "\"") ? "\"\"\"" : "\"";
              push @stack, $quote . $hashes; push @parens, 0;
              $blank->(join "", @c[$i .. $j + length($quote) - 1]); $i = $j + length($quote); next;
            }
          }
          if (@stack > 1) {   # inside an interpolation
            if ($c[$i] eq "(") { $parens[-1]++ }
            elsif ($c[$i] eq ")") {
              if ($parens[-1] == 0) { pop @stack; pop @parens; $out .= " "; $i++; next }
              $parens[-1]--;
            }
          }
          $out .= $c[$i]; $i++; next;
        }
        # In a string literal whose closing delimiter is $top.
        my ($quote, $hashes) = $top =~ /^("+)(#*)$/;
        if ($c[$i] eq "\\") {
          my $h = join "", @c[$i + 1 .. $i + length($hashes)];
          if ($h eq $hashes && $i + length($hashes) + 1 < $n) {
            my $k = $i + length($hashes) + 1;
            if ($c[$k] eq "(") { push @stack, "code"; push @parens, 0; $blank->(join "", @c[$i .. $k]); $i = $k + 1; next }
            $blank->(join "", @c[$i .. $k]); $i = $k + 1; next;
          }
        }
        my $close = join "", @c[$i .. $i + length($top) - 1];
        if ($close eq $top) { pop @stack; pop @parens; $blank->($close); $i += length($top); next }
        $blank->($c[$i]); $i++;
      }
      $text = $out;
      my $depth = 0;
      for my $line (split /\n/, $text) {
        if ($depth == 0 && $line =~ /^\s*((?:@\w+(?:\([^)]*\))?\s+|(?:public|open|final|indirect|nonisolated)\s+)*)(struct|class|enum|protocol|actor|typealias)\s+(\w+)/) {
          my ($prefix, $name) = ($1, $3);
          print "$module $name\n" if $prefix =~ /\b(?:public|open)\s/;
        }
        $depth += () = $line =~ /\{/g;
        $depth -= () = $line =~ /\}/g;
      }
    }' "$@"
}

listing=$(
  for dir in Sources/*/; do
    module=$(basename "$dir")
    files=()
    while IFS= read -r -d '' file; do files+=("$file"); done < <(find "$dir" -name '*.swift' -print0 | sort -z)
    [ ${#files[@]} -gt 0 ] || continue
    top_level_public_types "$module" "${files[@]}"
  done | sort -u
)

for dir in Sources/*/; do
  module=$(basename "$dir")
  find "$dir" -name '*.swift' | grep -q . || continue
  count=$(grep -c "^$module " <<<"$listing" || true)
  echo "$module $count"
  if [ "$mode" = --list ]; then grep "^$module " <<<"$listing" | sed 's/^[^ ]* /  /' || true; fi
done

if [ "$mode" = --check ]; then
  imago=$(grep -c '^Imago ' <<<"$listing" || true)
  if [ "$imago" -gt "$limit" ]; then
    echo "Imago has $imago top-level public types, more than the limit of $limit: nest the new type" \
      "under the one a user would look in (as ImageProcessors.Resize), or make it internal or package" >&2
    exit 1
  fi
  echo "Imago: $imago top-level public types, within the limit of $limit"
fi
