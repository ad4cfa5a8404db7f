# Common environment for the emu scripts: pins, target matrix, cache and build locations.
# shellcheck shell=bash

PMUSER_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The cache lives outside the checkout so fresh clones (CI) reuse downloads.
: "${PMUSER_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/pmuser}"
: "${PMUSER_BUILD:=$PMUSER_TOP/build}"
export PMUSER_TOP PMUSER_CACHE PMUSER_BUILD

# shellcheck source=versions.env
. "$PMUSER_TOP/emu/versions.env"
# shellcheck source=targets.sh
. "$PMUSER_TOP/emu/targets.sh"
