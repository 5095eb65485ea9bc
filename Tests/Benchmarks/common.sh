# Sourced by the benchmark and load scripts (from the package root).

# need COMMAND:PACKAGE …: installs through apt the packages whose command is missing.
need() {
    local missing=() pair
    for pair in "$@"; do command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}"); done
    [ ${#missing[@]} -eq 0 ] && return
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}

# script_mdmconf OUT: builds `mdmconf` as the README tells script authors to (release, static Swift runtime, no PIE;
# in .build-static so it does not disturb .build) and writes it stripped to OUT.
script_mdmconf() {
    swift build -c release --static-swift-stdlib --scratch-path .build-static --product mdmconf -Xlinker -no-pie -Xlinker --no-export-dynamic >/dev/null
    strip -o "$1" .build-static/release/mdmconf
}

# installed_server OUT: builds `mdmconf-server` as the README installs it (release, static Swift runtime; in
# .build-static beside the script build of `mdmconf`, so it does not disturb .build) and copies it to OUT. With the
# Swift runtime linked in, a process starts without resolving the runtime's symbols (5 ms instead of 11 for
# `--version`), and calls into the runtime (reference counts) are direct.
installed_server() {
    swift build -c release --static-swift-stdlib --scratch-path .build-static --product mdmconf-server >/dev/null
    cp .build-static/release/mdmconf-server "$1"
}
