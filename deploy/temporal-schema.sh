#!/bin/sh
# Creates Temporal's two databases and brings their schemas to this admin-tools version (the
# procedure of temporalio/samples-server). Safe to run on every start: `create` skips an existing
# database, `setup-schema -v 0.0` leaves a versioned schema alone, `update-schema` applies only
# the versions still missing. Connection settings come from SQL_PLUGIN, SQL_HOST, SQL_PORT,
# SQL_USER and SQL_PASSWORD, which temporal-sql-tool reads itself.
set -eu

SCHEMA_DIR=/etc/temporal/schema/postgresql/v12

for pair in temporal:temporal visibility:temporal_visibility; do
  schema="${pair%%:*}"
  db="${pair#*:}"
  echo "database $db: creating if missing, then updating its schema"
  temporal-sql-tool --db "$db" create
  temporal-sql-tool --db "$db" setup-schema -v 0.0
  temporal-sql-tool --db "$db" update-schema -d "$SCHEMA_DIR/$schema/versioned"
done
echo 'Temporal schemas are up to date'
