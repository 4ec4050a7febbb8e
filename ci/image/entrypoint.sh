#!/bin/sh
# The CI image's entrypoint (Dockerfile target `ci`). GitLab starts a job's container with the
# image's entrypoint and the job's shell as its arguments (`sh -c ...`), and a service's
# `command` as arguments too: a first argument that is a program (on PATH or a path) runs as it
# is, anything else is cardgate's (`serve --sidecar ...`, `validate .`). No arguments: `serve`.
set -e
[ "$#" -gt 0 ] || set -- serve
is_program() {
  case "$1" in
    */*) [ -f "$1" ] && [ -x "$1" ]; return ;;
  esac
  old_ifs=$IFS
  IFS=:
  for dir in $PATH; do
    if [ -f "$dir/$1" ] && [ -x "$dir/$1" ]; then
      IFS=$old_ifs
      return 0
    fi
  done
  IFS=$old_ifs
  return 1
}
if is_program "$1"; then exec "$@"; fi
exec cardgate "$@"
