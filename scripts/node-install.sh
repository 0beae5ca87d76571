#!/usr/bin/env bash
# Makes this host a Quietwire WireGuard server. The console's "Add server" shows the one line
# that runs it (as root):
#
#   curl -fsSL https://<control>/node-install.sh | sudo bash -s -- --token <token> --control https://<control>
#
# It exchanges the one-time enrolment token for the node's own bus credentials (POST
# <control>/api/nodes/enrol; a token works once, for an hour), writes them with the node's settings
# to /etc/quietwire (mode 0600), makes the node's WireGuard private key here with `wg genkey` (it
# never leaves this host: the agent registers only its public half), creates the interface with
# kernel WireGuard where the module exists and wireguard-go otherwise, and runs the node agent as
# the systemd unit quietwire-node.
#
# Needs: bash, curl, node (20+), wg (wireguard-tools), ip (iproute2), and wireguard-go when the
# kernel has no WireGuard; unbound and dns-root-data for the node's own resolver (without them the
# agent runs, but devices get no DNS answers); the node agent's code in --agent-dir (a Quietwire release with its
# node_modules, /opt/quietwire by default).
#
# Options for tests and unusual hosts:
#   --config-dir DIR   where node.env, the credentials, the CA and the key go (/etc/quietwire)
#   --agent-dir DIR    the Quietwire release the agent runs from (/opt/quietwire)
#   --interface NAME   the WireGuard interface (wg0)
#   --netns NS         drive an interface inside network namespace NS (ip netns exec NS …)
#   --node PATH        the node executable (the first `node` on PATH)
#   --no-systemd       start the agent directly, detached (pid in DIR/agent.pid, log in DIR/agent.log)
set -euo pipefail

token=''
control=''
config_dir='/etc/quietwire'
agent_dir='/opt/quietwire'
iface='wg0'
netns=''
node_bin=''
use_systemd=1

fail() {
  echo "node-install: $*" >&2
  exit 1
}

usage() {
  fail "usage: node-install.sh --token TOKEN --control URL [--config-dir DIR] [--agent-dir DIR] [--interface NAME] [--netns NS] [--node PATH] [--no-systemd]"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --token) token="${2:-}"; shift 2 ;;
    --control) control="${2:-}"; shift 2 ;;
    --config-dir) config_dir="${2:-}"; shift 2 ;;
    --agent-dir) agent_dir="${2:-}"; shift 2 ;;
    --interface) iface="${2:-}"; shift 2 ;;
    --netns) netns="${2:-}"; shift 2 ;;
    --node) node_bin="${2:-}"; shift 2 ;;
    --no-systemd) use_systemd=0; shift ;;
    -h | --help) usage ;;
    *) fail "unknown option $1 (see --help)" ;;
  esac
done

[ -n "$token" ] || fail "--token is required (the console shows it once, with the install command)"
[ -n "$control" ] || fail "--control is required (the console's address, e.g. https://vpn.example.com)"
[[ "$token" =~ ^[A-Za-z0-9_-]{20,200}$ ]] || fail "the token is not one the console gives (copy the command again)"
url_pattern='^https?://[]A-Za-z0-9.:@_~/%[-]+$'
[[ "$control" =~ $url_pattern ]] || fail "--control is not an http(s) URL"
control="${control%/}"
[[ "$iface" =~ ^[A-Za-z0-9_=+.-]{1,15}$ ]] || fail "--interface is not an interface name"
[ -z "$netns" ] || [[ "$netns" =~ ^[A-Za-z0-9_.-]{1,64}$ ]] || fail "--netns is not a namespace name"
[ "$(id -u)" = 0 ] || fail "run it as root (sudo): it writes $config_dir and creates a network interface"

for tool in curl wg ip; do
  command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install curl wireguard-tools iproute2)"
done
# The node's own resolver (the agent runs it on the tunnel addresses; NODE_RESOLVER=off goes without).
[ -x /usr/sbin/unbound ] ||
  echo "node-install: unbound is missing (apt-get install unbound dns-root-data): devices on this server get no DNS answers until it is there" >&2
# The agent turns on forwarding and NATs its devices out (NODE_FORWARDING=on, the default): it needs
# iptables and ip6tables; with NODE_FORWARDING=off in the env file the host's own firewall must do it.
for tool in iptables ip6tables sysctl; do
  command -v "$tool" >/dev/null ||
    echo "node-install: $tool is missing (apt-get install iptables procps): devices reach this server but not the internet until it is there" >&2
done
node_bin="${node_bin:-$(command -v node || true)}"
if [ -z "$node_bin" ] || [ ! -x "$node_bin" ]; then
  fail "node is missing (Node.js 20 or later runs the agent)"
fi
[ -f "$agent_dir/services/node-agent/src/main.ts" ] ||
  fail "the node agent is not in $agent_dir (unpack a Quietwire release there with its node_modules, or pass --agent-dir)"

# Commands that touch the interface run inside the namespace when one is given.
prefix=()
[ -z "$netns" ] || prefix=(ip netns exec "$netns")
on_host() { "${prefix[@]}" "$@"; }

umask 077
mkdir -p "$config_dir"
chmod 0700 "$config_dir"
answer="$config_dir/enrolment.json"
trap 'rm -f "$answer"' EXIT

# 1. The token for the node's settings and bus credentials (the token is spent here).
agent_version="$("$node_bin" -e 'try{process.stdout.write(String(require(process.argv[1]).version))}catch{}' \
  "$agent_dir/services/node-agent/package.json" 2>/dev/null || true)"
[[ "$agent_version" =~ ^[A-Za-z0-9._+-]{0,64}$ ]] || agent_version=''
status="$(curl -sS -o "$answer" -w '%{http_code}' -X POST "$control/api/nodes/enrol" \
  -H 'content-type: application/json' \
  --data "{\"token\":\"$token\",\"agent_version\":\"${agent_version:-unknown}\"}")" ||
  fail "could not reach $control"
if [ "$status" != 200 ]; then
  message="$("$node_bin" -e 'try{const a=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));process.stdout.write(a.message||"")}catch{}' "$answer" || true)"
  fail "enrolment refused ($status): ${message:-no answer from $control}"
fi

# 2. Its settings and credentials, each checked before it goes into a file a shell or systemd reads.
"$node_bin" - "$answer" "$config_dir" "$iface" "$netns" <<'NODE'
const fs = require('node:fs');
const path = require('node:path');
const [file, dir, iface, netns] = process.argv.slice(2);
const answer = JSON.parse(fs.readFileSync(file, 'utf8'));
const { node, bus } = answer;
const safe = /^[A-Za-z0-9._:,\/\[\]@+-]*$/;
const write = (name, content) => fs.writeFileSync(path.join(dir, name), content, { mode: 0o600 });
write('node.creds', bus.creds);
if (bus.ca) write('nats-ca.pem', bus.ca);
const env = {
  NODE_NAME: node.name,
  NODE_REGION: node.region,
  NODE_TAGS: node.tags.join(','),
  NODE_IP: node.ip,
  WG_ENDPOINT: node.endpoint,
  WG_LISTEN_PORT: String(node.listen_port),
  WG_INTERFACE: iface,
  NATS_URL: bus.url,
  NATS_CREDS: path.join(dir, 'node.creds'),
  ...(bus.ca ? { NATS_CA_FILE: path.join(dir, 'nats-ca.pem'), NODE_ENV: 'production' } : {}),
  BUS_NAMESPACE: bus.namespace,
  NODE_KEY_FILE: path.join(dir, 'node.key'),
};
const lines = Object.entries(env).map(([key, value]) => {
  if (!safe.test(value)) throw new Error(`the control plane sent an unexpected ${key}`);
  return `${key}=${value}`;
});
if (netns) lines.push(`WG_COMMAND_PREFIX="ip netns exec ${netns}"`);
write('node.env', `# Written by node-install.sh; read by the quietwire-node unit.\n${lines.join('\n')}\n`);
process.stdout.write(`node-install: enrolled as ${node.name} (${node.region}${node.city ? `, ${node.city}` : ''})\n`);
NODE
rm -f "$answer"

# 3. The node's WireGuard key, made here once and kept (a second run keeps the node's identity).
if [ ! -s "$config_dir/node.key" ]; then
  wg genkey >"$config_dir/node.key"
fi
chmod 0600 "$config_dir/node.key"

# 4. The interface: kernel WireGuard where the module loads, wireguard-go otherwise.
if on_host ip link show dev "$iface" >/dev/null 2>&1; then
  echo "node-install: interface $iface exists; keeping it"
elif on_host ip link add dev "$iface" type wireguard 2>/dev/null; then
  echo "node-install: interface $iface uses kernel WireGuard"
else
  command -v wireguard-go >/dev/null || fail "no kernel WireGuard here and wireguard-go is missing (apt-get install wireguard-go)"
  on_host wireguard-go "$iface"
  echo "node-install: interface $iface uses wireguard-go (no kernel WireGuard module)"
fi

# 5. The agent: a systemd unit where systemd runs, else started directly.
start_directly() {
  (
    cd "$agent_dir"
    set -a
    # shellcheck source=/dev/null
    . "$config_dir/node.env"
    set +a
    exec setsid "$node_bin" --import tsx services/node-agent/src/main.ts
  ) >>"$config_dir/agent.log" 2>&1 </dev/null &
  echo $! >"$config_dir/agent.pid"
  echo "node-install: agent started (pid $(cat "$config_dir/agent.pid"), log $config_dir/agent.log)"
}

if [ "$use_systemd" = 1 ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
  up="ip link show dev $iface >/dev/null 2>&1 || ip link add dev $iface type wireguard 2>/dev/null || wireguard-go $iface"
  [ -z "$netns" ] || up="ip netns exec $netns sh -c '$up'"
  cat >/etc/systemd/system/quietwire-node.service <<UNIT
[Unit]
Description=Quietwire node agent
After=network-online.target
Wants=network-online.target

[Service]
EnvironmentFile=$config_dir/node.env
WorkingDirectory=$agent_dir
ExecStartPre=/bin/sh -c "$up"
ExecStart=$node_bin --import tsx services/node-agent/src/main.ts
Restart=always
RestartSec=3

[Install]
WantedBy=multi-user.target
UNIT
  systemctl daemon-reload
  systemctl enable --now quietwire-node.service
  echo "node-install: agent running as the systemd unit quietwire-node (journalctl -u quietwire-node)"
else
  [ "$use_systemd" = 0 ] || echo "node-install: systemd is not running here; starting the agent directly"
  start_directly
fi
