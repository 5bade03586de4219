# Sourced by ./sightline and .ci/run: points JAVA_HOME at a JDK 21 or newer.
# Keeps a JAVA_HOME that is already 21+, else picks the newest under /usr/lib/jvm, else (as root on
# Debian) installs one from Debian's packages.
sightline_java_major() { "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1; }
sightline_find_jdk() {
  local d best="" best_major=0 m
  for d in /usr/lib/jvm/*; do
    [ -x "$d/bin/javac" ] || continue
    m=$(sightline_java_major "$d")
    if [ -n "$m" ] && [ "$m" -ge 21 ] && [ "$m" -gt "$best_major" ]; then best="$d"; best_major=$m; fi
  done
  printf '%s' "$best"
}
if [ -z "${JAVA_HOME:-}" ] || [ ! -x "$JAVA_HOME/bin/javac" ] || [ "$(sightline_java_major "$JAVA_HOME")" -lt 21 ]; then
  JAVA_HOME=$(sightline_find_jdk)
  if [ -z "$JAVA_HOME" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[sightline] no JDK 21+ found; installing one from Debian packages" >&2
    apt-get update -qq >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-21-jdk-headless >/dev/null 2>&1 \
      || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-25-jdk-headless >/dev/null 2>&1 || true
    JAVA_HOME=$(sightline_find_jdk)
  fi
  if [ -z "$JAVA_HOME" ]; then
    echo "[sightline] Sightline needs a JDK 21 or newer: set JAVA_HOME" >&2
    return 1 2>/dev/null || exit 1
  fi
fi
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
