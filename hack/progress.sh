# Sourced by the hack/build-*.sh scripts, which define say (a prefixed line on stderr) and elapsed.
#
# progress WHAT: go build -v and go install -v name each package they compile; count them on
# stdin into a progress line every 250, and pass anything else (errors) through to stderr.
progress() {
  local line n=0
  while IFS= read -r line; do
    case $line in
      *[\ :#]*) printf '%s\n' "$line" >&2 ;;
      *) n=$((n + 1)); [ $((n % 250)) -ne 0 ] || say "[$(elapsed)] $n packages compiled ($1)" ;;
    esac
  done
}
