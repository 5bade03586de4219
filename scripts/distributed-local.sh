#!/usr/bin/env bash
# Runs the distributed topology on one machine without Docker, from the all-in-one jar: a registry
# (in-memory store), a router, a gateway and a process of simulated vLLM workers that self-register
# with a lease — four JVMs talking HTTP, SSE and ZMQ to each other exactly as in docker-compose.yml
# (which adds etcd, NATS and Redis). Ctrl-C stops them all.
#   ./mvnw -B -q -DskipTests -pl standalone -am install && scripts/distributed-local.sh
# Ports: gateway 18080, registry 18081, router 18082, workers 19000+.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/jdk.sh
JAR=standalone/target/sightline-standalone.jar
LOGS=${SIGHTLINE_LOGS:-$(mktemp -d /tmp/sightline-distributed.XXXX)}
MODELS="$LOGS/models"
[ -f "$JAR" ] || { echo "build first: ./mvnw -B -q -DskipTests -pl standalone -am install" >&2; exit 1; }
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null || true' EXIT INT TERM

role() { # name main [env…] [-- args…]
  local name=$1 main=$2; shift 2
  local envs=() args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift && args=("$@")
  env "${envs[@]}" "$JAVA_HOME/bin/java" -Xmx512m -Dai.djl.offline=true -Dloader.main="$main" \
    -cp "$JAR" org.springframework.boot.loader.launch.PropertiesLauncher "${args[@]}" >"$LOGS/$name.log" 2>&1 &
  PIDS+=($!)
}
wait_http() { for _ in $(seq 1 180); do curl -sf "$1" >/dev/null 2>&1 && return 0; sleep 1; done; echo "timeout: $1" >&2; return 1; }

"$JAVA_HOME/bin/java" -Dloader.main=io.sightline.standalone.UnpackBundledModel -cp "$JAR" \
  org.springframework.boot.loader.launch.PropertiesLauncher "$MODELS/Qwen2.5-VL-7B-Instruct" >/dev/null
role registry io.sightline.registry.RegistryApplication SERVER_PORT=18081 \
  SIGHTLINE_ROUTER_ENABLED=false SIGHTLINE_INGEST_ENABLED=false SIGHTLINE_GATEWAY_ENABLED=false
wait_http http://127.0.0.1:18081/actuator/health
curl -sf -X PUT -H 'Content-Type: application/json' \
  http://127.0.0.1:18081/v1/admin/models/Qwen/Qwen2.5-VL-7B-Instruct --data-binary \
  "{\"name\":\"Qwen/Qwen2.5-VL-7B-Instruct\",\"backend\":\"vllm\",\"hf\":{\"path\":\"$MODELS/Qwen2.5-VL-7B-Instruct\"},\"kv_block_size\":16,\"mm_scheme\":\"gen2\",\"media_decoder\":{\"enabled\":true},\"routing_mode\":\"precise\"}" >/dev/null
role router io.sightline.router.RouterApplication SERVER_PORT=18082 SIGHTLINE_GATEWAY_ENABLED=false \
  SIGHTLINE_REGISTRY_MODE=remote SIGHTLINE_REGISTRY_URL=http://127.0.0.1:18081
role gateway io.sightline.gateway.GatewayApplication SERVER_PORT=18080 \
  SIGHTLINE_ROUTER_ENABLED=false SIGHTLINE_INGEST_ENABLED=false \
  SIGHTLINE_REGISTRY_MODE=remote SIGHTLINE_REGISTRY_URL=http://127.0.0.1:18081 \
  SIGHTLINE_GATEWAY_ROUTERURL=http://127.0.0.1:18082
role workers io.sightline.sim.WorkerSimMain -- --workers=2 --base-port=19000 \
  --model-dir="$MODELS/Qwen2.5-VL-7B-Instruct" --served-model-name=Qwen/Qwen2.5-VL-7B-Instruct \
  --registry=http://127.0.0.1:18081 --worker-id=sim
wait_http http://127.0.0.1:18082/actuator/health
wait_http http://127.0.0.1:18080/actuator/health
echo "Sightline (distributed, local): gateway http://localhost:18080/v1 — logs in $LOGS"
echo "Try: examples/demo.sh http://localhost:18080"
wait
