# Sourced by the benchmark scripts: `need COMMAND:PACKAGE …` installs through apt the packages whose command is missing.
need() {
    local missing=() pair
    for pair in "$@"; do command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}"); done
    [ ${#missing[@]} -eq 0 ] && return
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}
