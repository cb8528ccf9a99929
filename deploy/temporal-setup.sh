#!/bin/sh
# Temporal's runtime setup once the server answers: the namespace the service uses and the custom
# search attributes its workflows set. Safe to run on every start: what exists is kept, and a
# search attribute that exists with another type stops the deployment.
set -eu

NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
RETENTION="${TEMPORAL_NAMESPACE_RETENTION:-72h}"
# Name:Type pairs, as workflows/search-attributes.ts defines them (test/e2e/deployment.test.ts checks).
SEARCH_ATTRIBUTES="JobState:Keyword WorkspaceId:Keyword AgentId:Keyword JobType:Keyword WebhookId:Keyword Labels:KeywordList"

# Dial the server's IPv4 address: the CLI may otherwise try an address the server does not bind
# (Temporal's samples do the same).
host="${TEMPORAL_ADDRESS%:*}"
port="${TEMPORAL_ADDRESS##*:}"
ip="$(getent ahostsv4 "$host" | awk '{ print $1; exit }')"
export TEMPORAL_ADDRESS="${ip:-$host}:$port"
export TEMPORAL_NAMESPACE="$NAMESPACE"

# Given arguments, it is the operator's Temporal CLI on the compose network instead of the setup:
# `docker compose run --rm --no-deps temporal-setup worker deployment describe --name compute`.
if [ "$#" -gt 0 ]; then
  exec temporal "$@"
fi

# Runs a command until it succeeds, 30 tries 2 s apart: the server answers before its namespace
# cache has caught up with a namespace just created.
retry() {
  n=0
  until "$@"; do
    n=$((n + 1))
    if [ "$n" -ge 30 ]; then
      echo "giving up: $*" >&2
      return 1
    fi
    sleep 2
  done
}

echo "waiting for Temporal at $TEMPORAL_ADDRESS"
retry temporal operator cluster health

if temporal operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1; then
  echo "namespace $NAMESPACE exists"
else
  echo "creating namespace $NAMESPACE (retention $RETENTION)"
  retry temporal operator namespace create --namespace "$NAMESPACE" --retention "$RETENTION"
fi

# The list prints Keyword or INDEXED_VALUE_TYPE_KEYWORD depending on the CLI; compare without case,
# underscores or that prefix.
normalise() {
  echo "$1" | tr -d '_' | tr '[:lower:]' '[:upper:]' | sed 's/^INDEXEDVALUETYPE//'
}

existing="$(retry temporal operator search-attribute list --namespace "$NAMESPACE")"
missing=""
for pair in $SEARCH_ATTRIBUTES; do
  name="${pair%%:*}"
  type="${pair#*:}"
  have="$(echo "$existing" | awk -v name="$name" '$1 == name { print $2; exit }')"
  if [ -z "$have" ]; then
    missing="$missing --name $name --type $type"
  elif [ "$(normalise "$have")" = "$(normalise "$type")" ]; then
    echo "search attribute $name ($type) exists"
  else
    echo "search attribute $name exists as $have, but the service needs $type" >&2
    exit 1
  fi
done

if [ -n "$missing" ]; then
  echo "creating search attributes:$missing"
  # Word splitting of $missing is intended: it holds the --name/--type flags.
  # shellcheck disable=SC2086
  retry temporal operator search-attribute create --namespace "$NAMESPACE" $missing
fi
echo "Temporal namespace $NAMESPACE is ready"
