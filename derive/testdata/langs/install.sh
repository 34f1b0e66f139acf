#!/bin/sh
# Copyright 2020 The Authors. All rights reserved.
# Use of this source code is governed by a BSD-style license.

# install.sh fetches the release binary and puts it on the PATH.

# die prints a message and exits.
die() {
  echo "$*" >&2
  exit 1
}

function usage {
  cat <<EOF2
usage() { not a function in a here-document }
EOF2
}

function fetch_release() {
  local url=$1
  helper () { echo nested; }
  curl -fsSL "$url"
}

if true; then
  main()
  {
    echo $((1 << 3))
    fetch_release "x"
  }
fi
