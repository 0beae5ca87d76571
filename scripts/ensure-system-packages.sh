#!/usr/bin/env bash
# Debian packages the tests and `make dev` use: Chromium's headless build for browser tests and
# the full Chromium for the LCP bench, wireguard-go and wireguard-tools for real tunnels, iproute2
# for network namespaces, socat for the NATS cluster test's relays into its namespaces, PgBouncer
# for the pooling test, shellcheck for scripts/node-install.sh's test, unbound for each node's own
# resolver (tests and `make dev`) and dnsutils for the resolver test's dig, iptables for the
# kill-switch rules wg-quick applies in the tunnel-privacy test. Installs only what is missing.
set -euo pipefail
need=()
command -v chromium >/dev/null || need+=(chromium)
command -v chromium-headless-shell >/dev/null || need+=(chromium-headless-shell)
command -v wg >/dev/null || need+=(wireguard-tools)
command -v wireguard-go >/dev/null || need+=(wireguard-go)
command -v ip >/dev/null || need+=(iproute2)
command -v ping >/dev/null || need+=(iputils-ping)
command -v socat >/dev/null || need+=(socat)
command -v shellcheck >/dev/null || need+=(shellcheck)
command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || need+=(pgbouncer)
[ -x /usr/sbin/unbound ] || need+=(unbound)
command -v dig >/dev/null || need+=(dnsutils)
command -v iptables >/dev/null || need+=(iptables)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "packages: missing ${need[*]}; install them with apt-get (root needed)" >&2; exit 1
  fi
  echo "packages: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
