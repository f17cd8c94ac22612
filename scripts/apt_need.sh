# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the set-up scripts: mct_apt_need WHO PACKAGE... installs, with apt
# (as root, or through sudo), the Debian packages of the list that are missing.
mct_apt_need() {
  local who=$1 need="" pkg
  shift
  for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"
  done
  [ -n "$need" ] || return 0
  echo "$who: installing$need"
  local SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null
}
